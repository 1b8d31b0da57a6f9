// Package e2eserver gives krender's end-to-end tests a real kube-apiserver
// (with etcd, and kube-controller-manager running the garbage collector and
// the workload controllers) on loopback, started by hack/kube-apiserver.sh.
// Only a real server tells whether rendered manifests are accepted as they
// are, and only the real controllers what `krender gc` leaves them to delete.
package e2eserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvKubeconfig names an already running server to use instead of starting
// one, which saves the start-up when running the tests again and again.
const EnvKubeconfig = "KRENDER_E2E_KUBECONFIG"

// A cold build of kube-apiserver and kube-controller-manager takes minutes;
// starting them takes seconds.
const (
	upTimeout   = 30 * time.Minute
	downTimeout = 2 * time.Minute
)

// Up starts a server and returns its kubeconfig and a stop function that
// may be called more than once. Each call gets its own run directory, so
// test packages running in parallel do not share a server.
//
// The server is also stopped on SIGINT, SIGTERM and SIGHUP, and by the
// script's watchdog once this process is gone, since neither a panicking
// test nor `go test -timeout` runs deferred calls in TestMain.
func Up() (kubeconfig string, stop func(), err error) {
	if kc := os.Getenv(EnvKubeconfig); kc != "" {
		return kc, func() {}, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", nil, err
	}
	run, err := os.MkdirTemp("", "krender-e2e-")
	if err != nil {
		return "", nil, err
	}
	s := &server{
		root: root,
		env: append(os.Environ(),
			"KRENDER_E2E_RUN="+run,
			"KRENDER_E2E_OWNER_PID="+strconv.Itoa(os.Getpid()),
		),
		run:  run,
		sigs: make(chan os.Signal, 1),
		done: make(chan struct{}),
	}
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go s.watchSignals()

	if out, err := s.script(upTimeout, "up"); err != nil {
		s.stop()
		return "", nil, fmt.Errorf("hack/kube-apiserver.sh up: %w\n%s", err, tail(out, 8<<10))
	}
	return filepath.Join(run, "kubeconfig"), s.stop, nil
}

// Start is Up for a single test or benchmark: the server is stopped when
// tb and its subtests finish.
func Start(tb testing.TB) (kubeconfig string) {
	tb.Helper()
	kc, stop, err := Up()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	return kc
}

// Main starts one server for a whole test binary, sets *kubeconfig, runs
// the tests and stops the server. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(e2eserver.Main(m, &kubeconfig)) }
func Main(m *testing.M, kubeconfig *string) int {
	kc, stop, err := Up()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2eserver:", err)
		return 1
	}
	defer stop()
	*kubeconfig = kc
	return m.Run()
}

// RepoRoot is the nearest directory at or above the working directory that
// holds a go.mod; `go test` runs tests inside their package directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("e2eserver: no go.mod above the working directory")
		}
		dir = parent
	}
}

type server struct {
	root string
	env  []string
	run  string
	sigs chan os.Signal
	done chan struct{}
	once sync.Once
}

func (s *server) stop() {
	s.once.Do(func() {
		signal.Stop(s.sigs)
		close(s.done)
		if out, err := s.script(downTimeout, "down"); err != nil {
			fmt.Fprintf(os.Stderr, "e2eserver: hack/kube-apiserver.sh down: %v\n%s", err, out)
		}
		os.RemoveAll(s.run)
	})
}

func (s *server) watchSignals() {
	select {
	case sig := <-s.sigs:
		fmt.Fprintf(os.Stderr, "e2eserver: %v, stopping the API server and controller manager\n", sig)
		s.stop()
		os.Exit(1)
	case <-s.done:
	}
}

// script runs hack/kube-apiserver.sh, echoing its output to stderr (shown
// by `go test -v` or on failure) and returning it for error messages.
func (s *server) script(timeout time.Duration, arg string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var buf bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(s.root, "hack", "kube-apiserver.sh"), arg)
	cmd.Dir = s.root
	cmd.Env = s.env
	cmd.Stdout = io.MultiWriter(os.Stderr, &buf)
	cmd.Stderr = cmd.Stdout
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	return buf.Bytes(), err
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
