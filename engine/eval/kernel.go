package eval

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/policy"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/workspace"
)

//go:embed driver.py
var pythonDriver string

//go:embed driver.js
var javascriptDriver string

// interpreters are the languages' executables and how each runs its
// driver.
var interpreters = map[string]struct {
	Executable string
	Args       func() []string
}{
	"python":     {"python3", func() []string { return []string{"-u", "-c", pythonDriver} }},
	"javascript": {"node", func() []string { return []string{"-e", javascriptDriver} }},
}

// frame is one line of the driver protocol, either way.
type frame struct {
	Type     string          `json:"type"`
	ID       int             `json:"id,omitempty"`
	Code     string          `json:"code,omitempty"`
	Name     string          `json:"name,omitempty"`
	Text     string          `json:"text,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	Mime     string          `json:"mime,omitempty"`
	Data     string          `json:"data,omitempty"`
	Table    bool            `json:"table,omitempty"`
	OK       bool            `json:"ok,omitempty"`
	Result   *Display        `json:"result,omitempty"`
	Error    *CellError      `json:"error,omitempty"`
	Envelope json.RawMessage `json:"envelope,omitempty"`
	Version  string          `json:"version,omitempty"`
}

// Display is one rendered value: text (a table for a data frame) or a PNG.
type Display struct {
	Mime  string `json:"mime"`
	Data  string `json:"data"`
	Table bool   `json:"table,omitempty"`
}

// CellError is an exception the cell raised.
type CellError struct {
	Name      string `json:"ename"`
	Value     string `json:"evalue"`
	Traceback string `json:"traceback"`
}

// kernel is one long-lived interpreter, held by the broker.
type kernel struct {
	language string
	version  string
	started  time.Time
	pid      int
	in       io.WriteCloser
	inMu     sync.Mutex
	frames   chan frame
	exited   chan struct{}
	stderr   *proc.Tail
	sandbox  sandbox.Report
	busy     sync.Mutex // one cell at a time
	cells    int

	mu       sync.Mutex
	lastUsed time.Time
	state    string // ready, busy
}

// startKernel starts the language's driver in the sandbox (a command's
// rules: the workspace read-write under the carve-outs) and waits for it
// to say it is ready.
func startKernel(ctx context.Context, ws *workspace.Workspace, language string) (*kernel, error) {
	in, ok := interpreters[language]
	if !ok {
		return nil, envelope.Errorf(envelope.InvalidInput, "aw eval has no %q interpreter", language)
	}
	bin, err := exec.LookPath(in.Executable)
	if err != nil {
		return nil, envelope.Errorf(envelope.NotFound, "aw eval needs %s on PATH for %s cells: install it", in.Executable, language)
	}
	dir := ws.StatePath("eval")
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return nil, err
	}
	var env []string
	for _, kv := range policy.Env(ws) {
		k, _, _ := strings.Cut(kv, "=")
		if k != "AW_APPROVER_TOKEN" && k != "TMPDIR" {
			env = append(env, kv)
		}
	}
	env = append(env, "TMPDIR="+filepath.Join(dir, "tmp"), "PYTHONUNBUFFERED=1", "MPLBACKEND=Agg", "PYTHONDONTWRITEBYTECODE=1")
	argv := append([]string{bin}, in.Args()...)
	mode := sandbox.Mode(ws.Settings.Commands.Sandbox)
	var p *sandbox.Policy
	if mode != sandbox.Off {
		if p, err = sandbox.For(ws, ws.Root, env); err != nil {
			return nil, sandbox.Refusal(err, envelope.CommandDenied, "eval")
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			p.Writable = append(p.Writable, real)
		}
	}
	wrapped, rep, err := sandbox.Wrap(p, mode, argv)
	if err != nil {
		return nil, sandbox.Refusal(err, envelope.CommandDenied, "eval")
	}
	k := &kernel{language: language, started: time.Now(), lastUsed: time.Now(), frames: make(chan frame, 256), exited: make(chan struct{}),
		stderr: &proc.Tail{Max: 4000}, sandbox: rep, state: "ready"}
	cmd := exec.Command(wrapped[0], wrapped[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = ws.Root, env, k.stderr
	ownGroup(cmd)
	if k.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot start %s for eval: %v", in.Executable, err)
	}
	k.pid = cmd.Process.Pid
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 64<<20)
		for sc.Scan() {
			var f frame
			if json.Unmarshal(sc.Bytes(), &f) == nil {
				k.frames <- f
			}
		}
		cmd.Wait()
		close(k.exited)
	}()
	select {
	case f := <-k.frames:
		if f.Type != "ready" {
			k.kill()
			return nil, envelope.Errorf(envelope.Internal, "the %s driver did not start: %s", language, k.stderr.String())
		}
		k.version = f.Version
	case <-k.exited:
		return nil, envelope.Errorf(envelope.Internal, "%s exited while starting: %s", in.Executable, k.stderr.String())
	case <-ctx.Done():
		k.kill()
		return nil, envelope.Errorf(envelope.Timeout, "%s did not start in time: %s", in.Executable, k.stderr.String())
	case <-time.After(30 * time.Second):
		k.kill()
		return nil, envelope.Errorf(envelope.Timeout, "%s did not start within 30s: %s", in.Executable, k.stderr.String())
	}
	return k, nil
}

func (k *kernel) send(f frame) error {
	raw, _ := json.Marshal(f)
	k.inMu.Lock()
	defer k.inMu.Unlock()
	_, err := k.in.Write(append(raw, '\n'))
	return err
}

func (k *kernel) alive() bool {
	select {
	case <-k.exited:
		return false
	default:
		return true
	}
}

func (k *kernel) kill() {
	killGroup(k.pid)
	select {
	case <-k.exited:
	case <-time.After(3 * time.Second):
	}
}

func (k *kernel) held() broker.Held {
	k.mu.Lock()
	defer k.mu.Unlock()
	return broker.Held{Kind: k.language, Key: "eval", Pid: k.pid, State: k.state,
		AgeSeconds: int64(time.Since(k.started) / time.Second), IdleSecond: int64(time.Since(k.lastUsed) / time.Second)}
}

// Bounds of one cell's answer.
const (
	maxStream   = 16000 // characters of stdout and of stderr kept (the end)
	maxDisplays = 20
	maxImage    = 8 << 20
)

// cellResult is what one cell did.
type cellResult struct {
	Language   string     `json:"language"`
	Version    string     `json:"version"`
	OK         bool       `json:"ok"`
	Result     *Display   `json:"result,omitempty"`
	Stdout     string     `json:"stdout"`
	Stderr     string     `json:"stderr"`
	Truncated  bool       `json:"truncated,omitempty"`
	Displays   []Display  `json:"displays"`
	Error      *CellError `json:"error,omitempty"`
	TimedOut   bool       `json:"timedOut,omitempty"`
	Restarted  bool       `json:"restarted,omitempty"` // the interpreter was killed: its state is gone
	Fresh      bool       `json:"fresh"`               // this cell ran in a new interpreter
	ToolCalls  int        `json:"toolCalls"`
	Cell       int        `json:"cell"` // 1 for the first cell of this interpreter
	DurationMs int64      `json:"durationMs"`
}

// run runs one cell. The inactivity budget restarts with every frame
// and is suspended while a bridged tool call is outstanding; when it runs
// out the cell is interrupted (KeyboardInterrupt), and an interpreter
// that does not answer that is killed.
func (k *kernel) run(ctx context.Context, code string, budget time.Duration) (*cellResult, error) {
	if !k.busy.TryLock() {
		return nil, envelope.Errorf(envelope.TransactionState, "another eval cell is still running in this interpreter; wait for it (cells are not parallel-safe)")
	}
	defer k.busy.Unlock()
	k.mu.Lock()
	k.state = "busy"
	k.cells++
	res := &cellResult{Language: k.language, Version: k.version, Displays: []Display{}, Cell: k.cells}
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.state, k.lastUsed = "ready", time.Now()
		k.mu.Unlock()
	}()
	start := time.Now()
	if err := k.send(frame{Type: "run", ID: res.Cell, Code: code}); err != nil {
		return nil, envelope.Errorf(envelope.Internal, "the interpreter is gone: %v; %s", err, k.stderr.String())
	}
	timer := time.NewTimer(budget)
	defer timer.Stop()
	interrupted := time.Time{}
	var stdout, stderr strings.Builder
	for {
		var grace <-chan time.Time
		if !interrupted.IsZero() {
			grace = time.After(time.Until(interrupted.Add(3 * time.Second)))
		}
		select {
		case f := <-k.frames:
			if interrupted.IsZero() {
				timer.Reset(budget)
			}
			switch f.Type {
			case "stream":
				b := &stdout
				if f.Name == "stderr" {
					b = &stderr
				}
				b.WriteString(f.Text)
			case "display":
				if len(res.Displays) < maxDisplays && len(f.Data) <= maxImage {
					res.Displays = append(res.Displays, Display{Mime: f.Mime, Data: f.Data, Table: f.Table})
				} else {
					res.Truncated = true
				}
			case "tool":
				timer.Stop()
				res.ToolCalls++
				var env json.RawMessage
				if err := broker.CallBack(ctx, "eval.tool", toolCall{Name: f.Name, Args: f.Args}, &env); err != nil {
					fail, _ := json.Marshal(envelope.Fail("eval.tool", err))
					env = fail
				}
				k.send(frame{Type: "tool_result", ID: f.ID, Envelope: env})
				if interrupted.IsZero() {
					timer.Reset(budget)
				}
			case "done":
				res.OK, res.Result, res.Error = f.OK, f.Result, f.Error
				res.Stdout, res.Stderr = tailOf(stdout.String(), &res.Truncated), tailOf(stderr.String(), &res.Truncated)
				res.DurationMs = time.Since(start).Milliseconds()
				return res, nil
			}
		case <-timer.C:
			res.TimedOut = true
			interrupted = time.Now()
			k.send(frame{Type: "interrupt"})
		case <-ctx.Done():
			if interrupted.IsZero() {
				interrupted = time.Now()
				k.send(frame{Type: "interrupt"})
			}
		case <-grace:
			k.kill()
			res.Restarted = true
			res.Stdout, res.Stderr = tailOf(stdout.String(), &res.Truncated), tailOf(stderr.String(), &res.Truncated)
			res.DurationMs = time.Since(start).Milliseconds()
			return res, nil
		case <-k.exited:
			res.Restarted = true
			res.Stdout, res.Stderr = tailOf(stdout.String(), &res.Truncated), tailOf(stderr.String(), &res.Truncated)
			res.Error = &CellError{Name: "InterpreterExited", Value: "the interpreter exited", Traceback: k.stderr.String()}
			res.DurationMs = time.Since(start).Milliseconds()
			return res, nil
		}
	}
}

func tailOf(s string, truncated *bool) string {
	if len(s) > maxStream {
		*truncated = true
		cut := len(s) - maxStream
		for cut < len(s) && s[cut]&0xC0 == 0x80 {
			cut++
		}
		return "…" + s[cut:]
	}
	return s
}

// toolCall is a cell's bridged call, sent back to the aw call that runs
// the cell.
type toolCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}
