# e2e/proc.sh: process and port helpers the e2e scripts that start their own daemons share
# (e2e/slurm, e2e/nginx). Sourced after the script defines say (its prefix on stderr).

# alive PID: the process still runs.
alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }

# stop PID: SIGTERM, then SIGKILL after 5 s (slurmd ignores SIGTERM while it retries
# registering with a controller that is gone), and reap it.
stop() {
  local i
  alive "$1" || return 0
  kill "$1" 2>/dev/null || true
  for i in $(seq 50); do alive "$1" || break; sleep 0.1; done
  alive "$1" && kill -9 "$1" 2>/dev/null
  wait "$1" 2>/dev/null || true
}

# free_port prints a TCP port on 127.0.0.1 nothing listens on, below the ephemeral range (a
# port in it may be the local end of one of the run's own connections, and bind then fails).
free_port() {
  local p low
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range
  for p in $(shuf -i 10000-$((low - 1)) -n 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  say "no free port found"
  return 1
}
