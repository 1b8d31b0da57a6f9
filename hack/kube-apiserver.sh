#!/usr/bin/env bash
# Throwaway etcd + kube-apiserver + kube-controller-manager on loopback for
# krender's end-to-end tests: only a real API server proves that rendered
# manifests are accepted as-is (strict field validation, defaulting, RBAC,
# admission), and only the real garbage collector and workload controllers
# show what `krender gc` leaves them to delete.
#
#   hack/kube-apiserver.sh build   build etcd, kube-apiserver and
#                                  kube-controller-manager into .cache/e2e/bin
#   hack/kube-apiserver.sh up      build if needed, start all three, write a
#                                  kubeconfig
#   hack/kube-apiserver.sh env     print "export KUBECONFIG=..." for eval
#   hack/kube-apiserver.sh down    stop everything `up` started (safe to repeat)
#
# Environment:
#   KRENDER_E2E_KUBE_VERSION  Kubernetes release to build (default v1.33.13,
#                             the newest the local kubectl dispatcher covers)
#   KRENDER_E2E_ETCD_VERSION  etcd release to build (default v3.6.16)
#   KRENDER_E2E_CACHE         binaries and build modules (default .cache/e2e)
#   KRENDER_E2E_RUN           run state, certs, logs, kubeconfig
#                             (default .cache/e2e/run); one directory per server
#   KRENDER_E2E_OWNER_PID     if set, `up` also starts a watchdog that runs
#                             `down` once that process is gone, so a killed
#                             test binary leaves no servers behind
#   KRENDER_E2E_READY_TIMEOUT seconds to wait for each server to be ready
#                             (default 60)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SELF="$ROOT/hack/kube-apiserver.sh"
KUBE_VERSION=${KRENDER_E2E_KUBE_VERSION:-v1.33.13}
ETCD_VERSION=${KRENDER_E2E_ETCD_VERSION:-v3.6.16}
CACHE=${KRENDER_E2E_CACHE:-$ROOT/.cache/e2e}
BIN="$CACHE/bin"
SRC="$CACHE/src"
RUN=${KRENDER_E2E_RUN:-$CACHE/run}
[[ $RUN == /* ]] || RUN="$PWD/$RUN"
READY_TIMEOUT=${KRENDER_E2E_READY_TIMEOUT:-60}
ETCD_BIN="$BIN/etcd"
APISERVER_BIN="$BIN/kube-apiserver"
CONTROLLER_BIN="$BIN/kube-controller-manager"
KUBECTL_BIN="$BIN/kubectl"

log() { printf 'kube-apiserver.sh: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || die "'$c' is required but not installed"
	done
}

# The module proxy must not rewrite the wrapper modules behind our back, and
# the wrapper lives inside krender's git tree, where VCS stamping would fail.
go_env() {
	env GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off CGO_ENABLED=0 "$@"
}

# Prints the GoMod path (or another string field) from `go mod download -json`.
json_field() {
	sed -n "s/^[[:space:]]*\"$1\": \"\\(.*\\)\",\\{0,1\\}\$/\\1/p"
}

# Runs `go mod download -json` from the wrapper directory, which is inside
# krender's tree: a placeholder go.mod keeps krender's own go.mod untouched.
download_json() {
	printf 'module krender.invalid/e2e/placeholder\n' >"$1/go.mod"
	rm -f "$1/go.sum"
	(cd "$1" && go_env go mod download -json "$2")
}

# Prints the go directive and any godebug directives of a go.mod, so the
# wrapper keeps the upstream module's language and runtime defaults.
go_directives() {
	awk '
		/^go[ \t]/ { print; next }
		/^godebug[ \t]*\(/ { block = 1; print; next }
		block { print; if ($0 ~ /^\)/) block = 0; next }
		/^godebug[ \t]/ { print }
	' "$1"
}

# kube_current BIN: true if BIN exists and reports $KUBE_VERSION.
kube_current() {
	[[ -x $1 ]] &&
		[[ "$("$1" --version 2>/dev/null || true)" == "Kubernetes $KUBE_VERSION" ]]
}

etcd_current() {
	[[ -x $ETCD_BIN ]] &&
		[[ $'\n'"$("$ETCD_BIN" --version 2>/dev/null || true)"$'\n' == *$'\n'"etcd Version: ${ETCD_VERSION#v}"$'\n'* ]]
}

# k8s.io/kubernetes replaces its ~30 staging modules with ./staging paths, so
# it cannot be `go install`ed; a wrapper module pins each staging module to
# its published v0.Y.Z tag instead.
build_apiserver() {
	kube_current "$APISERVER_BIN" && return 0
	log "building kube-apiserver $KUBE_VERSION: 5-10 minutes and ~2.5 GB RAM without a warm Go build cache"
	log "(a first 'go test' may hit its 10m default timeout: run '$0 build' once, or pass -timeout 30m)"
	timed build_kube_cmd kube-apiserver "$APISERVER_BIN"
	kube_current "$APISERVER_BIN" || die "built kube-apiserver does not report $KUBE_VERSION"
}

# The garbage collector and the workload controllers (which delete old
# revisions by revisionHistoryLimit) are what `krender gc` relies on; only
# the real ones show that it leaves Kubernetes the right owners.
build_controller_manager() {
	kube_current "$CONTROLLER_BIN" && return 0
	log "building kube-controller-manager $KUBE_VERSION (after kube-apiserver, most packages are cached)"
	timed build_kube_cmd kube-controller-manager "$CONTROLLER_BIN"
	kube_current "$CONTROLLER_BIN" || die "built kube-controller-manager does not report $KUBE_VERSION"
}

# timed CMD...: runs CMD and logs how long it took, for CI's time budget.
timed() {
	local start=$SECONDS
	"$@"
	log "$2 built in $((SECONDS - start))s"
}

# kubectl comes with most machines; where it does not, the same release is
# built from the same module (kustomize inside, as in kubectl releases).
build_kubectl() {
	command -v kubectl >/dev/null && return 0
	"$KUBECTL_BIN" version --client 2>/dev/null | grep -q "$KUBE_VERSION" && return 0
	log "no kubectl on PATH: building kubectl $KUBE_VERSION into $BIN"
	build_kube_cmd kubectl "$KUBECTL_BIN"
}

# build_kube_cmd NAME OUT builds k8s.io/kubernetes/cmd/NAME at $KUBE_VERSION.
build_kube_cmd() {
	need go
	local name=$1 out=$2 ver=$KUBE_VERSION minor dir json gomod commit m
	[[ $ver =~ ^v1\.([0-9]+)\.[0-9]+$ ]] || die "KRENDER_E2E_KUBE_VERSION must look like v1.Y.Z, got $ver"
	minor=${BASH_REMATCH[1]}
	dir="$SRC/$name-$ver"
	mkdir -p "$dir" "$BIN"
	json=$(download_json "$dir" "k8s.io/kubernetes@$ver") || die "cannot download k8s.io/kubernetes@$ver"
	gomod=$(json_field GoMod <<<"$json")
	commit=$(json_field Hash <<<"$json")
	[[ -f $gomod ]] || die "no go.mod for k8s.io/kubernetes@$ver"
	{
		echo "module krender.invalid/e2e/$name"
		echo
		go_directives "$gomod"
		echo
		echo "require k8s.io/kubernetes $ver"
		echo
		echo "replace ("
		awk '/=>[ \t]*\.\/staging\// { print ($1 == "replace" ? $2 : $1) }' "$gomod" |
			while read -r m; do
				printf '\t%s => %s v0.%s\n' "$m" "$m" "${ver#v1.}"
			done
		echo ")"
	} >"$dir/go.mod"
	printf '//go:build tools\n\npackage tools\n\nimport _ "k8s.io/kubernetes/cmd/%s"\n' "$name" >"$dir/tools.go"
	(
		cd "$dir"
		go_env go mod tidy
		go_env go build -trimpath -o "$out.tmp" -ldflags "-s -w \
			-X k8s.io/component-base/version.gitVersion=$ver \
			-X k8s.io/component-base/version.gitMajor=1 \
			-X k8s.io/component-base/version.gitMinor=$minor \
			-X k8s.io/component-base/version.gitCommit=$commit \
			-X k8s.io/component-base/version.gitTreeState=clean" \
			"k8s.io/kubernetes/cmd/$name"
	) || die "building $name $ver failed"
	mv -f "$out.tmp" "$out"
}

# go.etcd.io/etcd/server/v3 is etcd's main package, but its go.mod carries
# replace directives, so it too needs a wrapper module to be built.
build_etcd() {
	etcd_current && return 0
	need go
	local ver=$ETCD_VERSION dir json gomod
	dir="$SRC/etcd-$ver"
	log "building etcd $ver"
	mkdir -p "$dir" "$BIN"
	json=$(download_json "$dir" "go.etcd.io/etcd/server/v3@$ver") || return 1
	gomod=$(json_field GoMod <<<"$json")
	[[ -f $gomod ]] || return 1
	{
		echo "module krender.invalid/e2e/etcd"
		echo
		go_directives "$gomod"
		echo
		echo "require go.etcd.io/etcd/server/v3 $ver"
	} >"$dir/go.mod"
	printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >"$dir/tools.go"
	(
		cd "$dir"
		go_env go mod tidy
		go_env go build -trimpath -ldflags "-s -w" -o "$ETCD_BIN.tmp" go.etcd.io/etcd/server/v3
	) || return 1
	mv -f "$ETCD_BIN.tmp" "$ETCD_BIN"
	etcd_current
}

# Debian's etcd-server is older (3.4) but keeps the tier usable when the
# module build breaks on a new Go release.
etcd_fallback() {
	if [[ -x /usr/bin/etcd ]]; then
		ETCD_BIN=/usr/bin/etcd
	elif [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
		log "falling back to Debian's etcd-server package"
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends etcd-server >&2 ||
			die "cannot install etcd-server"
		ETCD_BIN=/usr/bin/etcd
	else
		die "building etcd $ETCD_VERSION failed and no fallback is available"
	fi
	log "warning: using $("$ETCD_BIN" --version | head -n1) from $ETCD_BIN instead of $ETCD_VERSION"
}

cmd_build() {
	need flock
	mkdir -p "$CACHE"
	# Test packages may run `up` in parallel; only one of them should build.
	exec 9>"$CACHE/.build.lock"
	flock 9
	build_etcd || etcd_fallback
	build_apiserver
	build_controller_manager
	build_kubectl
	exec 9>&-
}

# Sets variable $1 to a free port. Ports below the ephemeral range cannot be
# taken by outgoing connections between the check and the bind.
PICKED_PORTS=" "
pick_port() {
	local p i
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + RANDOM % 12000))
		[[ $PICKED_PORTS == *" $p "* ]] && continue
		if [[ -z $(ss -Htan "( sport = :$p )") ]]; then
			PICKED_PORTS+="$p "
			printf -v "$1" '%s' "$p"
			return 0
		fi
	done
	die "no free loopback port found"
}

# A pid counts as ours only if its command line names this run directory,
# so a stale pid file never gets an unrelated process killed.
ours() {
	local pid=$1 state cmdline
	[[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] || return 1
	state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || return 1
	[[ $state != Z ]] || return 1
	cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
	[[ $cmdline == *"$RUN/"* ]]
}

stop_pidfile() {
	local file="$RUN/$1.pid" pid i
	[[ -f $file ]] || return 0
	pid=$(<"$file")
	if ours "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			ours "$pid" || break
			sleep 0.1
		done
		if ours "$pid"; then
			log "$1 (pid $pid) ignored SIGTERM; killing"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$file"
}

running() {
	local name
	for name in etcd kube-apiserver kube-controller-manager; do
		[[ -f $RUN/$name.pid ]] && ours "$(<"$RUN/$name.pid")" && return 0
	done
	return 1
}

# Starts a server in its own session, detached from the caller's stdio, so
# neither a terminal's Ctrl-C nor a caller waiting on its pipes is tied to it.
start_bg() {
	local name=$1
	shift
	setsid "$@" </dev/null >"$RUN/$name.log" 2>&1 &
	echo "$!" >"$RUN/$name.pid"
}

gen_pki() {
	local d="$RUN/pki"
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$d/ca.key" -out "$d/ca.crt" -days 7 -subj "/CN=krender-e2e-ca" 2>/dev/null
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$d/serving.key" -out "$d/serving.csr" -subj "/CN=krender-e2e-apiserver" 2>/dev/null
	openssl x509 -req -in "$d/serving.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
		-days 7 -out "$d/serving.crt" -extfile <(printf '%s\n' \
			"basicConstraints=critical,CA:FALSE" \
			"keyUsage=critical,digitalSignature,keyEncipherment" \
			"extendedKeyUsage=serverAuth" \
			"subjectAltName=IP:127.0.0.1,DNS:localhost") 2>/dev/null
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$d/sa.key" 2>/dev/null
	openssl pkey -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
	TOKEN=$(openssl rand -hex 32)
	printf '%s,krender-admin,krender-admin,"system:masters"\n' "$TOKEN" >"$RUN/tokens.csv"
	printf 'Authorization: Bearer %s\n' "$TOKEN" >"$RUN/auth-header"
}

write_kubeconfig() {
	local port=$1
	cat >"$RUN/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: krender-e2e
  cluster:
    server: https://127.0.0.1:$port
    certificate-authority-data: $(base64 -w0 <"$RUN/pki/ca.crt")
users:
- name: krender-admin
  user:
    token: $TOKEN
contexts:
- name: krender-e2e
  context:
    cluster: krender-e2e
    user: krender-admin
current-context: krender-e2e
EOF
}

wait_for() {
	local what=$1 name=$2 timeout=$3 i
	shift 3
	for ((i = 0; i < timeout * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		ours "$(<"$RUN/$name.pid")" || {
			log "$name exited while waiting for $what"
			return 1
		}
		sleep 0.2
	done
	log "$what not ready after ${timeout}s"
	return 1
}

start_etcd() {
	local client=$1 peer=$2 extra=()
	# --unsafe-no-fsync (3.5+) skips fsync: the data is thrown away anyway.
	if [[ $("$ETCD_BIN" --help 2>&1 || true) == *--unsafe-no-fsync* ]]; then
		extra+=(--unsafe-no-fsync)
	fi
	start_bg etcd "$ETCD_BIN" \
		--name=krender-e2e \
		--data-dir="$RUN/etcd" \
		--listen-client-urls="http://127.0.0.1:$client" \
		--advertise-client-urls="http://127.0.0.1:$client" \
		--listen-peer-urls="http://127.0.0.1:$peer" \
		--initial-advertise-peer-urls="http://127.0.0.1:$peer" \
		--initial-cluster="krender-e2e=http://127.0.0.1:$peer" \
		--initial-cluster-state=new \
		--logger=zap --log-level=warn \
		"${extra[@]}"
	wait_for "etcd on 127.0.0.1:$client" etcd 20 \
		curl -fsS --max-time 2 "http://127.0.0.1:$client/health" &&
		listens etcd "$client"
}

# True if our process holds the port: a plain-HTTP health check cannot tell
# our etcd from another one that took the port first.
listens() {
	local pid
	pid=$(<"$RUN/$1.pid")
	[[ $(ss -Htlnp "( sport = :$2 )") == *"pid=$pid,"* ]] && return 0
	log "$1 does not hold port $2 (address already in use?)"
	return 1
}

# The webhook admission plugins stay off: a rendered webhook configuration
# would otherwise make the server call out to a service IP in 10.0.0.0/24.
start_apiserver() {
	local etcd=$1 port=$2
	mkdir -p "$RUN/certs"
	start_bg kube-apiserver "$APISERVER_BIN" \
		--bind-address=127.0.0.1 \
		--advertise-address=127.0.0.1 \
		--secure-port="$port" \
		--etcd-servers="http://127.0.0.1:$etcd" \
		--service-cluster-ip-range=10.0.0.0/24 \
		--endpoint-reconciler-type=none \
		--disable-admission-plugins=ServiceAccount,MutatingAdmissionWebhook,ValidatingAdmissionWebhook \
		--authorization-mode=RBAC \
		--allow-privileged=true \
		--token-auth-file="$RUN/tokens.csv" \
		--tls-cert-file="$RUN/pki/serving.crt" \
		--tls-private-key-file="$RUN/pki/serving.key" \
		--cert-dir="$RUN/certs" \
		--service-account-issuer=https://kubernetes.default.svc.cluster.local \
		--service-account-key-file="$RUN/pki/sa.pub" \
		--service-account-signing-key-file="$RUN/pki/sa.key" \
		--profiling=false
	wait_for "kube-apiserver /readyz on 127.0.0.1:$port" kube-apiserver "$READY_TIMEOUT" \
		curl -fsS --max-time 5 --cacert "$RUN/pki/ca.crt" -H "@$RUN/auth-header" \
		"https://127.0.0.1:$port/readyz" &&
		listens kube-apiserver "$port"
}

# The garbage collector and the controllers that make and delete workload
# revisions, and nothing else: no scheduler or kubelet runs, so the tests use
# workloads with no pods to start. It talks to the API server as the admin;
# its own port (health only) is on loopback, and it takes no lease, since it
# is the only one.
start_controller_manager() {
	local port=$1
	start_bg kube-controller-manager "$CONTROLLER_BIN" \
		--kubeconfig="$RUN/kubeconfig" \
		--authentication-kubeconfig="$RUN/kubeconfig" \
		--authorization-kubeconfig="$RUN/kubeconfig" \
		--controllers=garbagecollector,deployment,replicaset,statefulset,daemonset,job,cronjob \
		--leader-elect=false \
		--bind-address=127.0.0.1 \
		--secure-port="$port" \
		--cert-dir="$RUN/controller-manager-certs" \
		--profiling=false
	wait_for "kube-controller-manager /healthz on 127.0.0.1:$port" kube-controller-manager "$READY_TIMEOUT" \
		curl -fsSk --max-time 5 -H "@$RUN/auth-header" "https://127.0.0.1:$port/healthz" &&
		listens kube-controller-manager "$port"
}

# Fails if any process we started listens anywhere but loopback.
check_loopback_only() {
	local name pid bad=0 addr
	for name in etcd kube-apiserver kube-controller-manager; do
		pid=$(<"$RUN/$name.pid")
		while read -r addr; do
			case $addr in
			127.*:* | \[::1\]:*) ;;
			*)
				log "$name listens on $addr"
				bad=1
				;;
			esac
		done < <(ss -Htulnp | awk -v p="pid=$pid," 'index($0, p) { print $5 }')
	done
	return "$bad"
}

dump_logs() {
	local name
	for name in etcd kube-apiserver kube-controller-manager; do
		[[ -f $RUN/$name.log ]] || continue
		log "---- last lines of $RUN/$name.log ----"
		tail -n 40 "$RUN/$name.log" >&2
	done
}

cmd_up() {
	need openssl ss curl setsid base64 awk
	cmd_build
	if [[ -d $RUN ]] && running; then
		die "already running (state in $RUN); run '$0 down' first"
	fi
	rm -rf "$RUN"
	mkdir -p "$RUN"
	chmod 700 "$RUN"
	gen_pki
	local etcd_port peer_port api_port kcm_port attempt start=$SECONDS
	for attempt in 1 2 3; do
		pick_port etcd_port
		pick_port peer_port
		pick_port api_port
		pick_port kcm_port
		write_kubeconfig "$api_port"
		if start_etcd "$etcd_port" "$peer_port" && start_apiserver "$etcd_port" "$api_port" &&
			start_controller_manager "$kcm_port"; then
			break
		fi
		dump_logs
		stop_pidfile kube-controller-manager
		stop_pidfile kube-apiserver
		stop_pidfile etcd
		rm -rf "$RUN/etcd" "$RUN/certs" "$RUN/controller-manager-certs"
		if ((attempt == 3)) || ! grep -qs 'address already in use' "$RUN"/*.log; then
			die "could not start the API server and controller manager (state left in $RUN; '$0 down' removes it)"
		fi
		log "port clash, retrying"
	done
	if ! check_loopback_only; then
		cmd_down
		die "refusing to run a server reachable from outside loopback"
	fi
	if [[ -n ${KRENDER_E2E_OWNER_PID:-} ]]; then
		KRENDER_E2E_RUN="$RUN" setsid "$SELF" _watch "$KRENDER_E2E_OWNER_PID" "$RUN/" \
			</dev/null >"$RUN/watch.log" 2>&1 &
		echo "$!" >"$RUN/watch.pid"
	fi
	log "kube-apiserver $KUBE_VERSION ready at https://127.0.0.1:$api_port (etcd 127.0.0.1:$etcd_port," \
		"kube-controller-manager 127.0.0.1:$kcm_port), up in $((SECONDS - start))s"
	log "kubeconfig: $RUN/kubeconfig"
}

cmd_down() {
	[[ -d $RUN ]] || return 0
	stop_pidfile watch
	stop_pidfile kube-controller-manager
	stop_pidfile kube-apiserver
	stop_pidfile etcd
	rm -rf "$RUN" 2>/dev/null || rm -rf "$RUN"
}

cmd_env() {
	[[ -f $RUN/kubeconfig ]] || die "not running; run '$0 up' first"
	printf 'export KUBECONFIG=%q\n' "$RUN/kubeconfig"
}

# Runs `down` once the owner process is gone; the run directory is passed as
# an argument so that `ours` recognises this watchdog too.
cmd_watch() {
	local owner=$1
	while kill -0 "$owner" 2>/dev/null; do
		sleep 1
	done
	rm -f "$RUN/watch.pid"
	cmd_down
}

case ${1:-} in
build) cmd_build ;;
build-kubectl) build_kubectl ;;
up) cmd_up ;;
down) cmd_down ;;
env) cmd_env ;;
_watch)
	[[ $# -eq 3 ]] || die "usage: $0 _watch PID RUNDIR"
	cmd_watch "$2"
	;;
*)
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
	;;
esac
