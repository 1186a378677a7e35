echo '{"type": "ready"}'
exec sleep 100000
