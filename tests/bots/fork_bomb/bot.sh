read -r start
echo '{"type": "ready"}'
read -r decide
bomb() { bomb | bomb & }
bomb
wait
# Never answers. A loop without a fork: once the process cap is reached, `sleep`
# could not even start, and the shell would exit (a crash, not the timeout expected).
while :; do :; done
