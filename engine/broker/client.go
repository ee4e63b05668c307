//go:build unix

package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Supported reports whether this platform runs a broker.
const Supported = true

// startTimeout bounds the start of a broker on a loaded machine.
const startTimeout = 15 * time.Second

// Call runs method ("lsp.definition") on the workspace's broker, starting
// one when none runs or the running one is of another build, and decodes
// the result into result.
func Call(ctx context.Context, ws *workspace.Workspace, method string, params, result any) error {
	return CallServing(ctx, ws, method, params, result, nil)
}

// CallServing is Call on a connection over which the broker may call
// back: serve answers those calls while this one is outstanding.
func CallServing(ctx context.Context, ws *workspace.Workspace, method string, params, result any, serve Served) error {
	if PerCall(ws) {
		return callHere(ctx, ws, method, params, result)
	}
	conn, err := connect(ctx, ws, true)
	if err != nil {
		return err
	}
	defer conn.Close()
	if serve == nil {
		return call(ctx, conn, method, params, result)
	}
	// The handshake's connection has no handler: a second one carries
	// the call and its callbacks.
	conn.Close()
	sock, err := SocketPath(ws.Root, os.Getenv)
	if err != nil {
		return envelope.Errorf(envelope.Internal, "%v", err)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return envelope.Errorf(envelope.Internal, "could not reach the workspace's broker at %s: %v", sock, err)
	}
	h := jsonrpc2.HandlerWithError(func(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		var p json.RawMessage
		if req.Params != nil {
			p = *req.Params
		}
		out, err := serve(ctx, req.Method, p)
		if err != nil {
			return nil, wireError(err)
		}
		return out, nil
	})
	served := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(c, jsonrpc2.PlainObjectCodec{}), jsonrpc2.AsyncHandler(h))
	defer served.Close()
	return call(ctx, served, method, params, result)
}

// Query is Call on a broker that already runs; it never starts one.
// running is false when none answers.
func Query(ctx context.Context, ws *workspace.Workspace, method string, params, result any) (running bool, err error) {
	if PerCall(ws) {
		return false, nil
	}
	conn, err := connect(ctx, ws, false)
	if err != nil || conn == nil {
		return false, err
	}
	defer conn.Close()
	return true, call(ctx, conn, method, params, result)
}

func call(ctx context.Context, conn *jsonrpc2.Conn, method string, params, result any) error {
	err := conn.Call(ctx, method, params, result)
	var re *jsonrpc2.Error
	if errors.As(err, &re) {
		if re.Code == codeEnvelope && re.Data != nil {
			var e envelope.Error
			if json.Unmarshal(*re.Data, &e) == nil && e.Code != "" {
				return &e
			}
		}
		return envelope.Errorf(envelope.Internal, "the broker failed: %s", re.Message)
	}
	if err != nil {
		if ctx.Err() != nil {
			return envelope.Errorf(envelope.Timeout, "the broker did not answer %s in time: %v", method, ctx.Err())
		}
		return envelope.Errorf(envelope.Internal, "the broker connection failed during %s: %v; `aw broker status` shows its state, `aw broker stop` restarts it on the next call", method, err)
	}
	return nil
}

// connect reaches the broker of this build, starting it when start is set
// (nil, nil when none runs and start is not set).
func connect(ctx context.Context, ws *workspace.Workspace, start bool) (*jsonrpc2.Conn, error) {
	sock, err := SocketPath(ws.Root, os.Getenv)
	if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "%v", err)
	}
	me := Identity()
	for attempt := 0; attempt < 3; attempt++ {
		conn, h, err := dial(ctx, sock)
		if err == nil {
			if h.Identity == me || !start {
				return conn, nil
			}
			// Another build: stop it, wait for it to go, start ours.
			var st Status
			conn.Call(ctx, "broker.stop", nil, &st)
			conn.Close()
			waitGone(h.Pid, 5*time.Second)
			continue
		}
		if !start {
			return nil, nil
		}
		if err := launch(ctx, ws, sock); err != nil {
			return nil, err
		}
	}
	return nil, envelope.Errorf(envelope.Internal, "could not reach the workspace's broker at %s; see %s", sock, ws.Store.Rel(logPath(ws)))
}

// dial connects and shakes hands.
func dial(ctx context.Context, sock string) (*jsonrpc2.Conn, hello, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, hello{}, err
	}
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(c, jsonrpc2.PlainObjectCodec{}), nil)
	var h hello
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := conn.Call(hctx, "broker.hello", nil, &h); err != nil {
		conn.Close()
		return nil, hello{}, err
	}
	return conn, h, nil
}

func logPath(ws *workspace.Workspace) string { return filepath.Join(Dir(ws), "broker.log") }

// launch starts a broker under the start lock, unless another caller
// started one meanwhile, and waits until its socket answers.
func launch(ctx context.Context, ws *workspace.Workspace, sock string) error {
	dir := Dir(ws)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return envelope.Errorf(envelope.Internal, "cannot create %s: %v", ws.Store.Rel(dir), err)
	}
	lf, err := os.OpenFile(filepath.Join(dir, "start.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return envelope.Errorf(envelope.Internal, "cannot open the broker's start lock: %v", err)
	}
	defer lf.Close()
	if err := lockWait(ctx, lf, startTimeout); err != nil {
		return envelope.Errorf(envelope.Timeout, "another aw call has been starting the workspace's broker for %s; try again", startTimeout)
	}
	defer unlock(lf)
	if conn, _, err := dial(ctx, sock); err == nil {
		conn.Close() // started by the caller that held the lock before us
		return nil
	}
	// Stale state: a record of a broker that no longer runs, a socket file
	// nobody listens on. A living broker of this workspace that does not
	// answer (hung) is ended: it holds the lock a new one needs.
	for _, b := range endBrokers(ws.Root, 0, false) {
		waitGone(b.Pid, 3*time.Second)
	}
	os.Remove(recordPath(ws.Root))
	os.Remove(sock)
	exe, err := os.Executable()
	if err != nil {
		return envelope.Errorf(envelope.Internal, "cannot find aw's own executable to start the broker: %v", err)
	}
	logf, err := os.OpenFile(logPath(ws), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return envelope.Errorf(envelope.Internal, "cannot create the broker log: %v", err)
	}
	defer logf.Close()
	cmd := exec.Command(exe, "--root", ws.Root, "broker", "serve")
	cmd.Dir = "/"
	cmd.Env = brokerEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return envelope.Errorf(envelope.Internal, "cannot start the broker: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // reaped while this aw runs
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			if conn, _, err := dial(ctx, sock); err == nil {
				conn.Close()
				return nil
			}
			return envelope.Errorf(envelope.Internal, "the broker exited while starting: %s", tail(logPath(ws)))
		case <-ctx.Done():
			return envelope.Errorf(envelope.Timeout, "starting the broker was cancelled: %v", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
		if conn, _, err := dial(ctx, sock); err == nil {
			conn.Close()
			return nil
		}
	}
	return envelope.Errorf(envelope.Timeout, "the broker did not open its socket within %s: %s", startTimeout, tail(logPath(ws)))
}

// brokerEnv is what the broker keeps of the caller's environment: what
// finding and running language servers needs, never tokens or keys (the
// servers get a narrower one still).
func brokerEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "NODE_PATH"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func tail(path string) string {
	raw, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(raw))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	if s == "" {
		return "its log is empty"
	}
	return "its log ends with: " + s
}

// waitGone waits up to d for pid to end.
func waitGone(pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for pid > 1 && proc.Alive(pid, 0) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop ends the workspace's broker and what it holds; running is false
// when none ran.
func Stop(ctx context.Context, ws *workspace.Workspace) (st Status, running bool, err error) {
	sock, err := SocketPath(ws.Root, os.Getenv)
	if err != nil {
		return st, false, envelope.Errorf(envelope.Internal, "%v", err)
	}
	conn, h, err := dial(ctx, sock)
	if err != nil {
		return st, false, nil
	}
	defer conn.Close()
	if err := call(ctx, conn, "broker.stop", nil, &st); err != nil {
		return st, true, err
	}
	waitGone(h.Pid, 5*time.Second)
	if proc.Alive(h.Pid, 0) {
		return st, true, envelope.Errorf(envelope.Internal, "the broker (pid %d) did not exit within 5s", h.Pid)
	}
	return st, true, nil
}

// Processes lists the running broker for data.processes.
func Processes(ws *workspace.Workspace) []proc.Owned {
	rec, err := readRecord(ws.Root)
	if err != nil || !proc.Alive(rec.Pid, rec.Start) {
		return nil
	}
	out := []proc.Owned{{Kind: "broker", ID: "broker", Pid: rec.Pid, AgeSeconds: int64(time.Since(rec.StartedAt) / time.Second)}}
	// What it holds (language servers, a debug adapter, interpreters),
	// each named service-kind.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var st Status
	if ok, err := Query(ctx, ws, "broker.status", nil, &st); ok && err == nil {
		for _, h := range st.Held {
			if h.Pid > 0 {
				out = append(out, proc.Owned{Kind: h.Service + "-" + h.Kind, ID: h.Key, Pid: h.Pid, AgeSeconds: h.AgeSeconds})
			}
		}
	}
	return out
}

// EndStale ends broker processes of this workspace that its record does
// not name (a broker hung past its own check, whose record a newer one
// replaced); with dryRun it only lists them. The recorded broker is its
// own to end.
func EndStale(ws *workspace.Workspace, dryRun bool) []proc.Owned {
	rec, _ := readRecord(ws.Root)
	return endBrokers(ws.Root, rec.Pid, dryRun)
}

// endBrokers ends the broker processes of root other than keep.
func endBrokers(root string, keep int, dryRun bool) []proc.Owned {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc.Owned
	for _, e := range entries {
		raw, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
		if len(args) != 5 || args[1] != "--root" || args[2] != root || args[3] != "broker" || args[4] != "serve" {
			continue
		}
		var pid int
		fmt.Sscan(e.Name(), &pid)
		if pid == keep || pid == os.Getpid() || !proc.Alive(pid, 0) {
			continue
		}
		out = append(out, proc.Owned{Kind: "broker", ID: "broker", Pid: pid})
		if !dryRun {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return out
}
