#!/bin/sh
# The build step of this bot (bot.toml: build = ["sh", "build.sh"]). arena runs it in
# the bot's folder when ./bot does not exist yet: when you submit the bot, and before
# `arena play` or `arena bot check` use the folder.
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
