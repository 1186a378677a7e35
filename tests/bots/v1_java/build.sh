#!/bin/sh
# The build step of this bot (bot.toml: build = ["sh", "build.sh"]). arena runs it on a
# copy of the bot's folder whenever that copy has not been built for its code yet (its
# build stamp, kept beside the folder, says; whether ./bot exists does not matter): when
# you submit the bot, on each worker, and before `arena play` or `arena bot check` use
# the folder after its code changed (protocol/PROTOCOL.md, "build").
set -e

# 1. Compile Bot.java into classes/ (Bot.class and Json.class).
javac -d classes Bot.java

# 2. Write the launcher ./bot that bot.toml's command starts. -Xmx: the JVM sizes its
#    heap from the machine's memory, not from the bot's memory limit, so give it one.
#    -XX:+UseSerialGC: one garbage-collector thread is plenty for a bot.
cat > bot <<'LAUNCHER'
#!/bin/sh
exec java -Xmx256m -XX:+UseSerialGC -cp "$(dirname "$0")/classes" Bot
LAUNCHER
chmod +x bot
