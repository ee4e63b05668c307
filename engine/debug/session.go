package debug

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/go-dap"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/policy"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Session states.
const (
	Starting = "starting"
	Running  = "running"
	Stopped  = "stopped"
	Exited   = "exited"     // the program ended
	Ended    = "terminated" // aw ended it (terminate)
	Expired  = "expired"    // the TTL ended it
	Failed   = "failed"     // the adapter died or never started
)

func terminal(state string) bool {
	return state == Exited || state == Ended || state == Expired || state == Failed
}

// Stop is where and why the program stopped.
type Stop struct {
	Reason      string `json:"reason"`
	Description string `json:"description,omitempty"`
	ThreadID    int    `json:"threadId"`
	Function    string `json:"function,omitempty"`
	File        string `json:"file,omitempty"` // workspace-relative when inside it
	Line        int    `json:"line,omitempty"`
	FrameID     int    `json:"frameId,omitempty"`
}

// outputMax is how much of the program's output a session keeps.
const outputMax = 256 << 10

// session is the one debug session of a workspace, held by the broker.
type session struct {
	id      string
	adapter string
	program string // workspace-relative
	args    []string
	root    string
	started time.Time
	ttl     time.Duration
	pid     int
	client  *client
	sandbox sandbox.Report
	stderr  *proc.Tail

	mu          sync.Mutex
	state       string
	stop        *Stop
	exitCode    *int
	detail      string
	output      []byte
	outputBytes int64
	changed     chan struct{} // closed and replaced on every state change
	initialized chan struct{}
	exited      chan struct{} // the adapter process ended
	timer       *time.Timer
	lastUsed    time.Time
	ending      string // the state aw is ending the session with
}

// launchCall is "debug.launch": what the aw call checked and the gate
// let through; the broker only starts it.
type launchCall struct {
	Adapter   string         `json:"adapter"`
	Argv      []string       `json:"argv"`      // the adapter, resolved
	Transport string         `json:"transport"` // stdio or socket
	Request   string         `json:"request"`   // launch or attach
	Arguments map[string]any `json:"arguments"` // the adapter's launch/attach arguments
	Program   string         `json:"program"`   // workspace-relative, for status
	Args      []string       `json:"args"`
	Cwd       string         `json:"cwd"` // absolute
	WaitMs    int            `json:"waitMs"`
	TTL       int            `json:"ttlSeconds"`
}

// start starts the adapter in the sandbox, connects to it and runs the
// DAP handshake up to configurationDone with the breakpoints set.
func start(ctx context.Context, ws *workspace.Workspace, id string, c launchCall, bps map[string][]int) (*session, error) {
	dir := ws.StatePath("debug")
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return nil, err
	}
	s := &session{id: id, adapter: c.Adapter, program: c.Program, args: c.Args, root: ws.Root, started: time.Now(), lastUsed: time.Now(),
		ttl: time.Duration(c.TTL) * time.Second, state: Starting, changed: make(chan struct{}), initialized: make(chan struct{}),
		exited: make(chan struct{}), stderr: &proc.Tail{Max: 4000}}
	sock := filepath.Join(dir, "dap.sock")
	argv := append([]string(nil), c.Argv...)
	if c.Transport == "socket" {
		os.Remove(sock)
		argv = append(argv, "--listen=unix:"+sock)
	}
	env := adapterEnv(ws, dir)
	wrapped, rep, err := confine(ws, argv, c.Cwd, env, dir)
	if err != nil {
		return nil, err
	}
	s.sandbox = rep
	cmd := exec.Command(wrapped[0], wrapped[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = c.Cwd, env, s.stderr
	ownGroup(cmd)
	var stdin io.WriteCloser
	var stdout io.ReadCloser
	if c.Transport == "socket" {
		cmd.Stdout = s.stderr
	} else if stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	} else if stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot start the %s adapter: %v", c.Adapter, err)
	}
	s.pid = cmd.Process.Pid
	go s.watch(cmd)
	if c.Transport == "socket" {
		conn, err := dialSocket(ctx, sock, s.exited)
		if err != nil {
			s.kill()
			return nil, envelope.Errorf(envelope.Internal, "the %s adapter did not open its socket: %v; its output ends with: %s", c.Adapter, err, s.stderr.String())
		}
		s.client = newClient(conn, conn, s.event)
	} else {
		s.client = newClient(stdout, stdin, s.event)
	}
	if err := s.handshake(ctx, c, bps); err != nil {
		s.kill()
		return nil, err
	}
	if s.ttl > 0 {
		s.timer = time.AfterFunc(s.ttl, func() { s.end(Expired) })
	}
	return s, nil
}

func dialSocket(ctx context.Context, sock string, exited chan struct{}) (net.Conn, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "unix", sock)
		if err == nil {
			return conn, nil
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("it exited")
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// handshake is initialize, launch (or attach), the breakpoints, and
// configurationDone; the launch's own answer may come only after that.
func (s *session) handshake(ctx context.Context, c launchCall, bps map[string][]int) error {
	var caps dap.Capabilities
	if err := s.client.request(ctx, "initialize", dap.InitializeRequestArguments{
		ClientID: "aw", ClientName: "aw", AdapterID: c.Adapter, Locale: "en", LinesStartAt1: true, ColumnsStartAt1: true,
		PathFormat: "path", SupportsVariableType: true,
	}, &caps); err != nil {
		return err
	}
	launched, err := s.client.start(c.Request, c.Arguments)
	if err != nil {
		return envelope.Errorf(envelope.Internal, "cannot send %s to the debug adapter: %v", c.Request, err)
	}
	select {
	case <-s.initialized:
	case m, ok := <-launched:
		// An adapter that answers launch before initialized (or refuses it).
		if !ok || !m.Success {
			return envelope.Errorf(envelope.InvalidInput, "the %s adapter refused to %s %s: %s %s", c.Adapter, c.Request, c.Program, clip(m.Message, 400), s.stderr.String())
		}
		launched = nil
		select {
		case <-s.initialized:
		case <-ctx.Done():
			return envelope.Errorf(envelope.Timeout, "the %s adapter did not get ready in time", c.Adapter)
		}
	case <-s.exited:
		return envelope.Errorf(envelope.Internal, "the %s adapter exited while starting: %s", c.Adapter, s.stderr.String())
	case <-ctx.Done():
		return envelope.Errorf(envelope.Timeout, "the %s adapter did not get ready in time (building the program can take a while on a cold cache); its output ends with: %s", c.Adapter, s.stderr.String())
	}
	for file, lines := range bps {
		if _, err := s.setBreakpoints(ctx, file, lines); err != nil {
			return err
		}
	}
	if caps.SupportsConfigurationDoneRequest {
		if err := s.client.request(ctx, "configurationDone", nil, nil); err != nil {
			return err
		}
	}
	if launched != nil {
		if err := await(ctx, c.Request, launched, nil); err != nil {
			return err
		}
	}
	s.set(func() {
		if s.state == Starting {
			s.state = Running
		}
	})
	return nil
}

// event records what the adapter reports.
func (s *session) event(m message) {
	switch m.Event {
	case "initialized":
		select {
		case <-s.initialized:
		default:
			close(s.initialized)
		}
	case "stopped":
		var b dap.StoppedEventBody
		json.Unmarshal(m.Body, &b)
		s.set(func() {
			if !terminal(s.state) {
				s.state = Stopped
				s.stop = &Stop{Reason: b.Reason, Description: clip(firstOf(b.Text, b.Description), 400), ThreadID: b.ThreadId}
			}
		})
	case "continued":
		s.set(func() {
			if !terminal(s.state) {
				s.state, s.stop = Running, nil
			}
		})
	case "exited":
		var b dap.ExitedEventBody
		json.Unmarshal(m.Body, &b)
		code := b.ExitCode
		s.set(func() { s.exitCode = &code })
	case "terminated":
		s.set(func() {
			if !terminal(s.state) {
				s.state, s.stop = Exited, nil
				if s.ending != "" {
					s.state = s.ending // ended by aw, not by itself
				}
			}
		})
		// The program is over: so is its adapter (an adapter left running
		// would hold a process nobody can reach).
		go s.end(Exited)
	case "output":
		var b dap.OutputEventBody
		json.Unmarshal(m.Body, &b)
		if b.Category == "stdout" || b.Category == "stderr" {
			s.mu.Lock()
			s.output = append(s.output, b.Output...)
			s.outputBytes += int64(len(b.Output))
			if len(s.output) > outputMax {
				s.output = s.output[len(s.output)-outputMax:]
			}
			s.mu.Unlock()
		}
	}
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// set changes the state under the lock and wakes the waiters.
func (s *session) set(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
	close(s.changed)
	s.changed = make(chan struct{})
}

// settle waits until the program is no longer running (stopped, or
// ended) or d passes, then fills in where it stopped.
func (s *session) settle(ctx context.Context, d time.Duration) {
	deadline := time.After(d)
	for {
		s.mu.Lock()
		state, wake := s.state, s.changed
		s.mu.Unlock()
		if state != Running && state != Starting {
			break
		}
		select {
		case <-wake:
			continue
		case <-deadline:
		case <-ctx.Done():
		}
		break
	}
	s.locate(ctx)
}

// locate fills in the top frame of a stop.
func (s *session) locate(ctx context.Context) {
	s.mu.Lock()
	st := s.stop
	s.mu.Unlock()
	if st == nil || st.Function != "" {
		return
	}
	var body dap.StackTraceResponseBody
	if s.client.request(ctx, "stackTrace", dap.StackTraceArguments{ThreadId: st.ThreadID, Levels: 1}, &body) != nil || len(body.StackFrames) == 0 {
		return
	}
	f := body.StackFrames[0]
	s.mu.Lock()
	if s.stop == st {
		st.Function, st.Line, st.FrameID = f.Name, f.Line, f.Id
		if f.Source != nil {
			st.File = s.rel(f.Source.Path)
		}
	}
	s.mu.Unlock()
}

func (s *session) rel(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.Rel(s.root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

func (s *session) setBreakpoints(ctx context.Context, file string, lines []int) ([]Breakpoint, error) {
	args := dap.SetBreakpointsArguments{Source: dap.Source{Path: file, Name: filepath.Base(file)}, Breakpoints: []dap.SourceBreakpoint{}}
	for _, l := range lines {
		args.Breakpoints = append(args.Breakpoints, dap.SourceBreakpoint{Line: l})
		args.Lines = append(args.Lines, l)
	}
	var body dap.SetBreakpointsResponseBody
	if err := s.client.request(ctx, "setBreakpoints", args, &body); err != nil {
		return nil, err
	}
	out := []Breakpoint{}
	for i, b := range body.Breakpoints {
		bp := Breakpoint{Line: b.Line, Verified: b.Verified, Message: clip(b.Message, 200)}
		if bp.Line == 0 && i < len(lines) {
			bp.Line = lines[i]
		}
		out = append(out, bp)
	}
	return out, nil
}

// end finishes the session: the adapter is asked to end the program, then
// its whole process group is killed. A program that already ended keeps
// its exited state.
func (s *session) end(state string) {
	s.mu.Lock()
	cur := s.state
	if !terminal(cur) {
		s.ending = state
	}
	s.mu.Unlock()
	if !terminal(cur) && s.client != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s.client.request(ctx, "disconnect", dap.DisconnectArguments{TerminateDebuggee: true}, nil)
		cancel()
	}
	s.kill()
	s.set(func() {
		if !terminal(s.state) {
			s.state, s.stop = state, nil
		}
		if s.state == Expired {
			s.detail = "the session reached its time limit and was ended"
		}
	})
}

// watch waits for the adapter process to end. An adapter that ends while
// aw is ending the session (it often leaves before answering disconnect)
// ends it in the state aw asked for; one that ends by itself failed.
func (s *session) watch(cmd *exec.Cmd) {
	cmd.Wait()
	s.set(func() {
		switch {
		case terminal(s.state):
		case s.ending != "":
			s.state, s.stop = s.ending, nil
		default:
			s.state, s.detail = Failed, fmt.Sprintf("the %s adapter exited: %s", s.adapter, s.stderr.String())
		}
	})
	close(s.exited)
}

func (s *session) kill() {
	if s.timer != nil {
		s.timer.Stop()
	}
	killGroup(s.pid)
	select {
	case <-s.exited:
	case <-time.After(3 * time.Second):
	}
}

func (s *session) live() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !terminal(s.state)
}

func (s *session) held() broker.Held {
	s.mu.Lock()
	defer s.mu.Unlock()
	return broker.Held{Kind: s.adapter, Key: s.id, Pid: s.pid, State: s.state, Detail: clip(s.detail, 600),
		AgeSeconds: int64(time.Since(s.started) / time.Second), IdleSecond: int64(time.Since(s.lastUsed) / time.Second),
		Until: s.started.Add(s.ttl)}
}

// confine wraps the adapter like a command (the workspace read-write
// under the same carve-outs), with the session's directory writable.
func confine(ws *workspace.Workspace, argv []string, cwd string, env []string, dir string) ([]string, sandbox.Report, error) {
	mode := sandbox.Mode(ws.Settings.Commands.Sandbox)
	var p *sandbox.Policy
	if mode != sandbox.Off {
		var err error
		if p, err = sandbox.For(ws, cwd, env); err != nil {
			return nil, sandbox.Report{}, sandbox.Refusal(err, envelope.CommandDenied, "debugging")
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, sandbox.Report{}, err
		}
		p.Writable = append(p.Writable, real)
		for _, a := range argv[:1] {
			if r, err := filepath.EvalSymlinks(a); err == nil {
				p.PathDirs = append(p.PathDirs, sandbox.HiddenPathDirs(filepath.Dir(a)+string(filepath.ListSeparator)+filepath.Dir(r), p.Home)...)
			}
		}
	}
	wrapped, rep, err := sandbox.Wrap(p, mode, argv)
	if err != nil {
		return nil, sandbox.Report{}, sandbox.Refusal(err, envelope.CommandDenied, "debugging")
	}
	return wrapped, rep, nil
}

// adapterEnv is a command's environment (the policy's), with a temporary
// directory of the session's own.
func adapterEnv(ws *workspace.Workspace, dir string) []string {
	var env []string
	for _, kv := range policy.Env(ws) {
		k, _, _ := strings.Cut(kv, "=")
		if k == "AW_APPROVER_TOKEN" || k == "TMPDIR" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TMPDIR="+filepath.Join(dir, "tmp"))
}
