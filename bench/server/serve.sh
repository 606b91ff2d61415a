# Sourced by the server benchmarks (server.sh, server-rss.sh, server/ab.sh): start and stop the
# server they measure. Needs WORK (a scratch folder); sets SERVER_PID, PORT and URL.

# Starts the server command line "$@" (with --port 0) in the background, its log in
# $WORK/server.log, and waits until it says which port it listens on.
start_server_process() {
  "$@" >"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  PORT=""
  for _ in $(seq 1 300); do
    PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/server.log" | head -1)
    [ -n "$PORT" ] && break
    sleep 0.1
  done
  [ -n "$PORT" ] || { cat "$WORK/server.log"; exit 1; }
  URL="http://127.0.0.1:$PORT"
}

# SIGTERM, then the exit status: the server drains and must exit 0.
stop_server() {
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || { echo "server exited with $?" >&2; exit 1; }
  SERVER_PID=""
}
