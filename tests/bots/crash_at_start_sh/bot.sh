echo "giving up" >&2; exit 1
