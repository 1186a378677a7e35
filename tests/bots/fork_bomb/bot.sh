read -r start
echo '{"type": "ready"}'
read -r decide
bomb() { bomb | bomb & }
bomb
wait
sleep 100000
