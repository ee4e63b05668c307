package debug

import (
	"context"
	"encoding/json"
	"net"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/google/go-dap"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Bounds of what one answer carries (the seed's).
const (
	MaxFrames    = 30
	MaxVariables = 50
	MaxValue     = 400
	MaxOutput    = 8000
)

// Service is the broker's debug service: the workspace's one session and
// the breakpoints set for the next one.
type Service struct {
	mu          sync.Mutex
	breakpoints map[string][]int // absolute path → lines
	sess        *session
	last        *session // the session before, for status after its end
}

// NewService returns the service the broker hosts under "debug".
func NewService() *Service { return &Service{breakpoints: map[string][]int{}} }

// Breakpoint is one breakpoint as the adapter took it.
type Breakpoint struct {
	Line     int    `json:"line"`
	Verified bool   `json:"verified"`
	Message  string `json:"message,omitempty"`
}

// FileBreakpoints are the breakpoints of one file.
type FileBreakpoints struct {
	File  string `json:"file"`
	Lines []int  `json:"lines"`
}

// SessionInfo is a session as status shows it.
type SessionInfo struct {
	ID               string          `json:"sessionId"`
	Adapter          string          `json:"adapter"`
	Program          string          `json:"program"`
	Args             []string        `json:"args"`
	State            string          `json:"state"`
	Stop             *Stop           `json:"stop,omitempty"`
	ExitCode         *int            `json:"exitCode,omitempty"`
	Detail           string          `json:"detail,omitempty"`
	Pid              int             `json:"pid,omitempty"`
	AgeSeconds       int64           `json:"ageSeconds"`
	RemainingSeconds int64           `json:"remainingSeconds"`
	Sandbox          json.RawMessage `json:"sandbox,omitempty"`
	OutputBytes      int64           `json:"outputBytes"`
}

// statusResult is the broker's answer to status and to every call that
// moves the program.
type statusResult struct {
	Session     *SessionInfo      `json:"session"`
	Breakpoints []FileBreakpoints `json:"breakpoints"`
	Current     bool              `json:"current"` // Session is live (not the last one's end)
}

type breakpointsCall struct {
	File  string `json:"file"` // absolute
	Rel   string `json:"rel"`
	Lines []int  `json:"lines"`
}

type breakpointsResult struct {
	Breakpoints []Breakpoint `json:"breakpoints"`
	Applied     bool         `json:"applied"` // sent to a running session
}

type controlCall struct {
	Command  string `json:"command"` // continue, pause, next, stepIn, stepOut
	ThreadID int    `json:"threadId"`
	WaitMs   int    `json:"waitMs"`
}

type refCall struct {
	ThreadID  int    `json:"threadId,omitempty"`
	FrameID   int    `json:"frameId,omitempty"`
	Reference int    `json:"reference,omitempty"`
	Expr      string `json:"expression,omitempty"`
	Since     int64  `json:"since,omitempty"`
}

// Call implements broker.Service.
func (v *Service) Call(ctx context.Context, ws *workspace.Workspace, method string, params json.RawMessage) (any, error) {
	switch method {
	case "status":
		return v.status(), nil
	case "breakpoints":
		var c breakpointsCall
		if err := json.Unmarshal(params, &c); err != nil {
			return nil, err
		}
		return v.setBreakpoints(ctx, c)
	case "launch":
		var c launchCall
		if err := json.Unmarshal(params, &c); err != nil {
			return nil, err
		}
		return v.launch(ctx, ws, c)
	case "terminate":
		v.mu.Lock()
		s := v.sess
		v.mu.Unlock()
		if s == nil || !s.live() {
			return nil, noSession("terminate")
		}
		s.end(Ended)
		return v.status(), nil
	}
	s, err := v.current(method)
	if err != nil && method == "output" {
		// What a finished program printed stays readable.
		v.mu.Lock()
		s = v.sess
		v.mu.Unlock()
		if s != nil {
			err = nil
		}
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.lastUsed = time.Now()
	s.mu.Unlock()
	var c refCall
	json.Unmarshal(params, &c)
	switch method {
	case "control":
		var cc controlCall
		if err := json.Unmarshal(params, &cc); err != nil {
			return nil, err
		}
		return v.control(ctx, s, cc)
	case "threads":
		var body dap.ThreadsResponseBody
		if err := s.client.request(ctx, "threads", nil, &body); err != nil {
			return nil, err
		}
		sort.Slice(body.Threads, func(i, j int) bool { return body.Threads[i].Id < body.Threads[j].Id })
		if body.Threads == nil {
			body.Threads = []dap.Thread{}
		}
		return body, nil
	case "stack":
		if c.ThreadID == 0 {
			c.ThreadID = s.stopThread()
		}
		var body dap.StackTraceResponseBody
		if err := s.client.request(ctx, "stackTrace", dap.StackTraceArguments{ThreadId: c.ThreadID, Levels: MaxFrames}, &body); err != nil {
			return nil, err
		}
		frames := []Frame{}
		for i, f := range body.StackFrames {
			if i == MaxFrames {
				break
			}
			fr := Frame{ID: f.Id, Function: f.Name, Line: f.Line}
			if f.Source != nil {
				fr.File = s.rel(f.Source.Path)
			}
			frames = append(frames, fr)
		}
		total := body.TotalFrames
		if total < len(body.StackFrames) {
			total = len(body.StackFrames)
		}
		return stackResult{ThreadID: c.ThreadID, Frames: frames, TotalFrames: total, Truncated: total > len(frames)}, nil
	case "scopes":
		var body dap.ScopesResponseBody
		if err := s.client.request(ctx, "scopes", dap.ScopesArguments{FrameId: c.FrameID}, &body); err != nil {
			return nil, err
		}
		out := []Scope{}
		for _, sc := range body.Scopes {
			out = append(out, Scope{Name: sc.Name, Reference: sc.VariablesReference, Expensive: sc.Expensive, Named: sc.NamedVariables})
		}
		return map[string]any{"frameId": c.FrameID, "scopes": out}, nil
	case "variables":
		var body dap.VariablesResponseBody
		if err := s.client.request(ctx, "variables", dap.VariablesArguments{VariablesReference: c.Reference, Count: MaxVariables + 1}, &body); err != nil {
			return nil, err
		}
		out := []Variable{}
		for i, vr := range body.Variables {
			if i == MaxVariables {
				break
			}
			out = append(out, variable(vr.Name, vr.Value, vr.Type, vr.VariablesReference))
		}
		return map[string]any{"reference": c.Reference, "variables": out, "truncated": len(body.Variables) > MaxVariables}, nil
	case "evaluate":
		if c.FrameID == 0 {
			c.FrameID = s.stopFrame()
		}
		var body dap.EvaluateResponseBody
		if err := s.client.request(ctx, "evaluate", dap.EvaluateArguments{Expression: c.Expr, FrameId: c.FrameID, Context: "repl"}, &body); err != nil {
			return nil, err
		}
		return map[string]any{"expression": c.Expr, "frameId": c.FrameID, "result": variable("", body.Result, body.Type, body.VariablesReference)}, nil
	case "output":
		s.mu.Lock()
		defer s.mu.Unlock()
		kept := s.outputBytes - int64(len(s.output)) // bytes no longer kept
		from := c.Since
		if from < kept {
			from = kept
		}
		if from > s.outputBytes {
			from = s.outputBytes
		}
		text := string(s.output[from-kept:])
		truncated := false
		if len(text) > MaxOutput {
			text, truncated = text[len(text)-MaxOutput:], true
		}
		return outputResult{Text: text, Bytes: s.outputBytes, Next: s.outputBytes, Truncated: truncated || from > c.Since, State: s.state}, nil
	}
	return nil, envelope.Errorf(envelope.InvalidInput, "the debug service has no method %q", method)
}

// Frame is one stack frame.
type Frame struct {
	ID       int    `json:"frameId"`
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line"`
}

type stackResult struct {
	ThreadID    int     `json:"threadId"`
	Frames      []Frame `json:"frames"`
	TotalFrames int     `json:"totalFrames"`
	Truncated   bool    `json:"truncated"`
}

// Scope is one scope of a frame, with the reference its variables go by.
type Scope struct {
	Name      string `json:"name"`
	Reference int    `json:"reference"`
	Expensive bool   `json:"expensive,omitempty"`
	Named     int    `json:"namedVariables,omitempty"`
}

// Variable is one variable (or an evaluation's result); Reference > 0
// has children.
type Variable struct {
	Name      string `json:"name,omitempty"`
	Value     string `json:"value"`
	Type      string `json:"type,omitempty"`
	Reference int    `json:"reference"`
	Clipped   bool   `json:"clipped,omitempty"`
}

func variable(name, value, typ string, ref int) Variable {
	v := Variable{Name: name, Value: value, Type: typ, Reference: ref}
	if len([]rune(value)) > MaxValue {
		v.Value, v.Clipped = string([]rune(value)[:MaxValue])+"…", true
	}
	return v
}

type outputResult struct {
	Text      string `json:"text"`
	Bytes     int64  `json:"bytes"`
	Next      int64  `json:"next"`
	Truncated bool   `json:"truncated"`
	State     string `json:"state"`
}

func noSession(what string) error {
	return envelope.Errorf(envelope.TransactionState, "no debug session is running, so there is nothing to %s: start one with `aw debug launch PROGRAM` (set breakpoints first with `aw debug breakpoints FILE LINE...`)", what)
}

// current is the live session a call needs.
func (v *Service) current(method string) (*session, error) {
	v.mu.Lock()
	s := v.sess
	v.mu.Unlock()
	if s == nil || !s.live() {
		if s != nil {
			s.mu.Lock()
			state, detail := s.state, s.detail
			s.mu.Unlock()
			return nil, envelope.Errorf(envelope.TransactionState, "the debug session %s is over (%s%s), so there is nothing to %s: `aw debug launch PROGRAM` starts a new one", s.id, state, suffix(detail), method).With("sessionId", s.id).With("state", state)
		}
		return nil, noSession(method)
	}
	return s, nil
}

func suffix(detail string) string {
	if detail == "" {
		return ""
	}
	return ": " + detail
}

func (s *session) stopThread() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		return s.stop.ThreadID
	}
	return 1
}

func (s *session) stopFrame() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		return s.stop.FrameID
	}
	return 0
}

func (v *Service) setBreakpoints(ctx context.Context, c breakpointsCall) (*breakpointsResult, error) {
	v.mu.Lock()
	if len(c.Lines) == 0 {
		delete(v.breakpoints, c.File)
	} else {
		v.breakpoints[c.File] = c.Lines
	}
	s := v.sess
	v.mu.Unlock()
	res := &breakpointsResult{Breakpoints: []Breakpoint{}}
	if s != nil && s.live() {
		bps, err := s.setBreakpoints(ctx, c.File, c.Lines)
		if err != nil {
			return nil, err
		}
		res.Breakpoints, res.Applied = bps, true
		return res, nil
	}
	for _, l := range c.Lines {
		res.Breakpoints = append(res.Breakpoints, Breakpoint{Line: l})
	}
	return res, nil
}

func (v *Service) launch(ctx context.Context, ws *workspace.Workspace, c launchCall) (*statusResult, error) {
	v.mu.Lock()
	if s := v.sess; s != nil && s.live() {
		v.mu.Unlock()
		return nil, envelope.Errorf(envelope.TransactionState, "a debug session (%s, %s %s) is already running in this workspace and aw holds one at a time: end it with `aw debug terminate` first (it is never replaced silently)", s.id, s.adapter, s.program).With("sessionId", s.id)
	}
	bps := map[string][]int{}
	for f, l := range v.breakpoints {
		bps[f] = l
	}
	v.mu.Unlock()
	sctx, cancel := context.WithTimeout(ctx, time.Duration(c.WaitMs)*time.Millisecond+60*time.Second)
	defer cancel()
	var s *session
	var err error
	if c.Request == "attach" && c.Transport == "tcp" {
		s, err = attachTCP(sctx, ws, store.NewID("session"), c, bps)
	} else {
		s, err = start(sctx, ws, store.NewID("session"), c, bps)
	}
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	if cur := v.sess; cur != nil && cur.live() {
		v.mu.Unlock()
		s.end(Ended)
		return nil, envelope.Errorf(envelope.TransactionState, "another debug session (%s) started meanwhile; end it with `aw debug terminate` first", cur.id)
	}
	v.last, v.sess = v.sess, s
	v.mu.Unlock()
	s.settle(ctx, time.Duration(c.WaitMs)*time.Millisecond)
	return v.status(), nil
}

// attachTCP connects to a debug adapter already listening on a loopback
// port (a program started with its debugger listening).
func attachTCP(ctx context.Context, ws *workspace.Workspace, id string, c launchCall, bps map[string][]int) (*session, error) {
	port := strconv.Itoa(int(c.Arguments["port"].(float64)))
	delete(c.Arguments, "port")
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return nil, envelope.Errorf(envelope.NotFound, "nothing accepts connections on 127.0.0.1:%s: %v; start the program with its debugger listening on that port first", port, err)
	}
	s := &session{id: id, adapter: c.Adapter, program: "127.0.0.1:" + port, args: []string{}, root: ws.Root, started: time.Now(), lastUsed: time.Now(),
		ttl: time.Duration(c.TTL) * time.Second, state: Starting, changed: make(chan struct{}), initialized: make(chan struct{}),
		exited: make(chan struct{}), stderr: &proc.Tail{Max: 4000}}
	s.client = newClient(conn, conn, s.event)
	go func() {
		<-s.client.closed
		s.set(func() {
			if !terminal(s.state) {
				s.state, s.detail = Exited, "the debug adapter closed the connection"
			}
		})
		close(s.exited)
	}()
	if err := s.handshake(ctx, c, bps); err != nil {
		conn.Close()
		return nil, err
	}
	if s.ttl > 0 {
		s.timer = time.AfterFunc(s.ttl, func() { s.end(Expired); conn.Close() })
	}
	return s, nil
}

func (v *Service) control(ctx context.Context, s *session, c controlCall) (*statusResult, error) {
	s.mu.Lock()
	state := s.state
	thread := c.ThreadID
	if thread == 0 && s.stop != nil {
		thread = s.stop.ThreadID
	}
	s.mu.Unlock()
	if thread == 0 {
		thread = 1
	}
	switch {
	case c.Command == "pause" && state != Running:
		return nil, envelope.Errorf(envelope.TransactionState, "the program is %s, not running: there is nothing to pause", state)
	case c.Command != "pause" && state != Stopped:
		return nil, envelope.Errorf(envelope.TransactionState, "the program is %s, not stopped: %s needs it stopped (`aw debug pause`, or wait for a breakpoint with `aw debug status`)", state, verbOf(c.Command))
	}
	if c.Command != "pause" {
		s.set(func() { s.state, s.stop = Running, nil })
	}
	if err := s.client.request(ctx, c.Command, map[string]any{"threadId": thread}, nil); err != nil {
		return nil, err
	}
	s.settle(ctx, time.Duration(c.WaitMs)*time.Millisecond)
	return v.status(), nil
}

func verbOf(command string) string {
	return map[string]string{"continue": "continue", "next": "step-over", "stepIn": "step-in", "stepOut": "step-out"}[command]
}

func (v *Service) status() *statusResult {
	v.mu.Lock()
	s := v.sess
	res := &statusResult{Breakpoints: []FileBreakpoints{}}
	for f, l := range v.breakpoints {
		res.Breakpoints = append(res.Breakpoints, FileBreakpoints{File: f, Lines: l})
	}
	v.mu.Unlock()
	sort.Slice(res.Breakpoints, func(i, j int) bool { return res.Breakpoints[i].File < res.Breakpoints[j].File })
	if s == nil {
		return res
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	info := &SessionInfo{ID: s.id, Adapter: s.adapter, Program: s.program, Args: s.args, State: s.state, ExitCode: s.exitCode,
		Detail: s.detail, AgeSeconds: int64(time.Since(s.started) / time.Second), OutputBytes: s.outputBytes}
	if info.Args == nil {
		info.Args = []string{}
	}
	if s.stop != nil {
		st := *s.stop
		info.Stop = &st
	}
	if !terminal(s.state) {
		info.Pid = s.pid
		info.RemainingSeconds = int64((s.ttl - time.Since(s.started)) / time.Second)
		res.Current = true
	}
	if raw, err := json.Marshal(s.sandbox); err == nil && s.sandbox.Mechanism != "" {
		info.Sandbox = raw
	}
	res.Session = info
	return res
}

// Held implements broker.Service.
func (v *Service) Held() []broker.Held {
	v.mu.Lock()
	s := v.sess
	v.mu.Unlock()
	if s == nil || !s.live() {
		return nil
	}
	return []broker.Held{s.held()}
}

// Close implements broker.Service.
func (v *Service) Close() {
	v.mu.Lock()
	s := v.sess
	v.mu.Unlock()
	if s != nil {
		s.end(Ended)
	}
}
