#!/usr/bin/env bash
# Ensures the external services the test suite talks to answer on loopback, starting them when they do not.
# Redis (6379), RabbitMQ (5672) and NATS (4222, the engine cluster); installs the test tools (fault injection, chromium) when missing.
# Safe to run repeatedly.
set -u

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() { # name port seconds
  local i
  for ((i = 0; i < $3 * 4; i++)); do port_open "$2" && { echo "services: $1 answers on :$2"; return 0; }; sleep 0.25; done
  echo "services: $1 did not come up on :$2 within $3 s" >&2
  return 1
}

ensure_redis() {
  if command -v redis-cli >/dev/null && redis-cli -p 6379 ping 2>/dev/null | grep -q PONG; then
    echo "services: redis answers on :6379"; return 0
  fi
  echo "services: starting redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || return 1
  wait_port redis 6379 20
}

ensure_rabbitmq() {
  if port_open 5672; then echo "services: rabbitmq answers on :5672"; return 0; fi
  echo "services: starting rabbitmq"
  rabbitmq-server -detached || return 1
  wait_port rabbitmq 5672 90
}

ensure_nats() {
  if port_open 4222; then echo "services: nats answers on :4222"; return 0; fi
  if ! command -v nats-server >/dev/null; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
      echo "services: installing nats-server"
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server) >/dev/null 2>&1
    fi
  fi
  command -v nats-server >/dev/null || { echo "services: nats-server missing; the cluster tests say so" >&2; return 0; }
  echo "services: starting nats"
  mkdir -p /var/lib/nats-server /var/log 2>/dev/null
  nohup nats-server -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log >/dev/null 2>&1 &
  wait_port nats 4222 20
}

# Fault-injection tools some tests use (clock jumps, disk errors): Debian's libfaketime and fiu-utils.
ensure_fault_tools() {
  local missing=()
  [ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || missing+=(libfaketime)
  command -v fiu-run >/dev/null || missing+=(fiu-utils)
  [ ${#missing[@]} -eq 0 ] && { echo "services: fault tools present"; return 0; }
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "services: ${missing[*]} missing and cannot be installed here; the tests that need them say so" >&2
    return 0
  fi
  echo "services: installing ${missing[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 ||
    echo "services: could not install ${missing[*]}" >&2
}

# The docker-compose client (Debian's package): the compose files are validated with `docker-compose config`
# (test/e2e/cli-docker-compose.test.ts); no Docker engine is needed for that.
ensure_compose_client() {
  command -v docker-compose >/dev/null && { echo "services: docker-compose present"; return 0; }
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "services: docker-compose missing and cannot be installed here; the compose test says so" >&2
    return 0
  fi
  echo "services: installing docker-compose"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose) >/dev/null 2>&1 ||
    echo "services: could not install docker-compose" >&2
}

# The console's browser test drives Debian's chromium through playwright-core (no browser download).
ensure_chromium() {
  if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then
    echo "services: chromium present"; return 0
  fi
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "services: chromium missing and cannot be installed here; the console browser test says so" >&2
    return 0
  fi
  echo "services: installing chromium"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 ||
    echo "services: could not install chromium" >&2
}

status=0
ensure_fault_tools
ensure_compose_client
ensure_chromium
ensure_redis || status=1
ensure_rabbitmq || status=1
ensure_nats || status=1
exit $status
