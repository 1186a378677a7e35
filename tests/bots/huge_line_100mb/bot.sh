read -r start
echo '{"type": "ready"}'
read -r decide
head -c 100000000 /dev/zero | tr '\0' 'x'
echo
sleep 100000
