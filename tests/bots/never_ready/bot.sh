exec sleep 600
