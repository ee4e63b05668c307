// Package debug is aw debug: one Debug Adapter Protocol session per
// workspace (delve, debugpy), held by the workspace's broker because a
// session is state across calls. The aw call checks and gates; the broker
// starts the adapter in the OS sandbox and speaks DAP to it
// (github.com/google/go-dap for the wire format and types).
//
// Decisions where the product contract is silent:
//   - launch and attach are gated as commands (kind command); the approval
//     covers the adapter, the program, its arguments and the directory.
//     The adapter's argv and the command the program amounts to (`go run
//     PROGRAM ARGS` for a Go package debugged by delve, `python3 PROGRAM
//     ARGS` for debugpy, the program itself for an executable) both pass
//     the command policy first, so debugging never runs what `aw command
//     run` would refuse.
//   - The adapter and the program run in the OS sandbox with a command's
//     rules (the workspace read-write under the same carve-outs), plus the
//     session's directory under .agentic/debug/ (its socket, the built
//     binary, a private temporary directory). The adapter is in a process
//     group of its own and dies with the broker.
//   - A second launch while a session lives is refused (TRANSACTION_STATE),
//     never a silent replacement. The session ends at its TTL
//     (debug.ttlSeconds, at most 30 minutes), on terminate, when the
//     broker ends (idle, stopped, killed), or when the program exits.
//   - Breakpoints live in the broker: set before a launch, they are sent
//     when the session starts; they are forgotten when the broker ends.
//   - Calls that move the program (launch, continue, step-*) wait for the
//     next stop or the end up to --wait seconds (default 30) and return
//     where it stopped; a program still running after that is reported
//     running (status and pause reach it).
//   - attach connects to a debug adapter already listening on a loopback
//     port; it reaches that port only when the program listens outside
//     the sandbox's network namespace (commands.network true).
package debug

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/policy"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// AdaptersRequest is adapters.
type AdaptersRequest struct{}

// StatusRequest is status.
type StatusRequest struct{}

// BreakpointsRequest sets (or with no lines clears) a file's breakpoints.
type BreakpointsRequest struct {
	File  string `json:"file" doc:"the source file, relative to the workspace root"`
	Lines []int  `json:"lines" doc:"1-based lines to stop at; empty clears the file's breakpoints"`
}

// LaunchRequest starts a program under the debugger.
type LaunchRequest struct {
	Program     string   `json:"program" doc:"what to debug, relative to the root: a Go package directory or .go file (delve builds it), a Python file (debugpy), or a Go executable"`
	Args        []string `json:"args,omitempty" doc:"the program's arguments"`
	Adapter     string   `json:"adapter,omitempty" doc:"delve or debugpy (default: chosen by the program)"`
	WaitSeconds *float64 `json:"wait_seconds,omitempty" doc:"seconds to wait for the first stop or the end (default 30, at most 300)"`
}

// AttachRequest connects to a debug adapter listening on a loopback port.
type AttachRequest struct {
	Port        int      `json:"port" doc:"the loopback port a debug adapter listens on"`
	Adapter     string   `json:"adapter,omitempty" doc:"delve or debugpy: whose attach arguments to send (default delve)"`
	WaitSeconds *float64 `json:"wait_seconds,omitempty" doc:"seconds to wait for a stop (default 30, at most 300)"`
}

// ControlRequest is continue, pause and the steps.
type ControlRequest struct {
	ThreadID    int      `json:"thread_id,omitempty" doc:"the thread (default: the one that stopped)"`
	WaitSeconds *float64 `json:"wait_seconds,omitempty" doc:"seconds to wait for the next stop or the end (default 30, at most 300)"`
}

// ThreadsRequest is threads.
type ThreadsRequest struct{}

// StackRequest is stack.
type StackRequest struct {
	ThreadID int `json:"thread_id,omitempty" doc:"the thread (default: the one that stopped)"`
}

// ScopesRequest is scopes.
type ScopesRequest struct {
	FrameID int `json:"frame_id" doc:"a frame id from stack"`
}

// VariablesRequest is variables.
type VariablesRequest struct {
	Reference int `json:"reference" doc:"a reference from scopes, variables or evaluate"`
}

// EvaluateRequest is evaluate.
type EvaluateRequest struct {
	Expression string `json:"expression" doc:"an expression in the program's language"`
	FrameID    int    `json:"frame_id,omitempty" doc:"the frame whose scope it is evaluated in (default: the top frame of the stop)"`
}

// OutputRequest is output.
type OutputRequest struct {
	Since int64 `json:"since,omitempty" doc:"a byte offset from an earlier output's next: only what came after"`
}

// TerminateRequest is terminate.
type TerminateRequest struct{}

// callTimeout bounds a broker call that does not wait for the program.
const callTimeout = 30 * time.Second

// Adapters lists the adapters and whether each can start here.
func Adapters(ctx context.Context, ws *workspace.Workspace, _ *AdaptersRequest) (envelope.Envelope, error) {
	out := []Availability{}
	var ready []string
	for _, a := range adapters {
		av := detect(ws, a)
		if av.Available {
			ready = append(ready, a.ID)
		}
		out = append(out, av)
	}
	summary := "no debug adapter can start for this workspace (data.adapters says why for each)"
	if len(ready) > 0 {
		summary = "usable here: " + strings.Join(ready, ", ")
	}
	env := envelope.New("", summary, map[string]any{"adapters": out})
	for _, av := range out {
		if av.Available {
			env.Fact("%s: available (%s)", av.ID, av.Binary)
		} else {
			env.Fact("%s: %s", av.ID, clip(av.Reason, 160))
		}
	}
	return env, nil
}

// Status reports the session, without starting a broker.
func Status(ctx context.Context, ws *workspace.Workspace, _ *StatusRequest) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res statusResult
	running, err := broker.Query(ctx, ws, "debug.status", nil, &res)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if !running {
		env := envelope.New("", "no debug session: the broker is not running (breakpoints and sessions live in it)", &res)
		res.Breakpoints = []FileBreakpoints{}
		env.Fact("debug: no session")
		return env, nil
	}
	return sessionEnvelope(ws, &res, ""), nil
}

// Breakpoints sets a file's breakpoints, before or during a session.
func Breakpoints(ctx context.Context, ws *workspace.Workspace, req *BreakpointsRequest) (envelope.Envelope, error) {
	if req.File == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "name the source file: `aw debug breakpoints main.go 12 20` (no lines clears the file)")
	}
	p, err := ws.Jail.Resolve(req.File, workspace.Read)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if st, err := os.Stat(p.Abs); err != nil || st.IsDir() {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "%s is not a file in the workspace: breakpoints go in a source file", p.Rel).With("path", p.Rel)
	}
	seen := map[int]bool{}
	lines := []int{}
	for _, l := range req.Lines {
		if l < 1 {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "a line number is 1 or more, got %d", l)
		}
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	if len(lines) > 100 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "at most 100 breakpoints per file, got %d", len(lines))
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res breakpointsResult
	if err := broker.Call(ctx, ws, "debug.breakpoints", breakpointsCall{File: p.Abs, Rel: p.Rel, Lines: lines}, &res); err != nil {
		return envelope.Envelope{}, err
	}
	data := map[string]any{"file": p.Rel, "lines": lines, "breakpoints": res.Breakpoints, "applied": res.Applied}
	var summary string
	switch {
	case len(lines) == 0:
		summary = "cleared the breakpoints of " + p.Rel
	case res.Applied:
		verified := 0
		for _, b := range res.Breakpoints {
			if b.Verified {
				verified++
			}
		}
		summary = fmt.Sprintf("set %d breakpoints in %s (%d verified by the adapter)", len(lines), p.Rel, verified)
	default:
		summary = fmt.Sprintf("set %d breakpoints in %s for the next launch", len(lines), p.Rel)
	}
	env := envelope.New("", summary, data)
	env.Fact("breakpoints %s: %v", p.Rel, lines)
	return env, nil
}

// waitOf reads wait_seconds (default 30, 0..300).
func waitOf(w *float64) (int, error) {
	if w == nil {
		return 30000, nil
	}
	if *w < 0 || *w > 300 {
		return 0, envelope.Errorf(envelope.InvalidInput, "wait_seconds is 0 to 300, got %g", *w)
	}
	return int(*w * 1000), nil
}

// Launch checks the program and the adapter with the command policy,
// gates the launch like a command, and has the broker start it.
func Launch(ctx context.Context, ws *workspace.Workspace, req *LaunchRequest) (envelope.Envelope, error) {
	if req.Program == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "name the program to debug: `aw debug launch ./cmd/tool` (a Go package), `aw debug launch app.py` (Python)")
	}
	wait, err := waitOf(req.WaitSeconds)
	if err != nil {
		return envelope.Envelope{}, err
	}
	p, err := ws.Jail.Resolve(req.Program, workspace.Read)
	if err != nil {
		return envelope.Envelope{}, err
	}
	st, err := os.Stat(p.Abs)
	if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "%s does not exist in the workspace", p.Rel).With("path", p.Rel)
	}
	a, av, ok := adapterFor(ws, req.Adapter, p.Abs, st)
	if !ok {
		if req.Adapter != "" {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "unknown adapter %q: the adapters are delve, debugpy, lldb, dart (`aw debug adapters` says which work here)", req.Adapter)
		}
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "no debug adapter takes %s: delve debugs Go packages, .go files and Go executables, debugpy .py files, lldb executables built with debug information (C, C++, Rust); name one with --adapter", p.Rel)
	}
	if !av.Available {
		return envelope.Envelope{}, envelope.Errorf(envelope.ToolDisabled, "the %s adapter cannot start here: %s", a.ID, av.Reason).With("adapter", a.ID)
	}
	adapterArgv := append([]string{av.Binary}, a.Args...)
	var programArgv []string
	args := req.Args
	if args == nil {
		args = []string{}
	}
	launch := map[string]any{"program": p.Abs, "args": args, "cwd": ws.Root}
	switch a.ID {
	case "delve":
		if st.IsDir() || filepath.Ext(p.Abs) == ".go" {
			programArgv = append([]string{"go", "run", "./" + strings.TrimPrefix(p.Rel, "./")}, args...)
			launch["mode"] = "debug"
			launch["output"] = filepath.Join(ws.StatePath("debug"), "debug.bin")
		} else {
			programArgv = append([]string{"./" + strings.TrimPrefix(p.Rel, "./")}, args...)
			launch["mode"] = "exec"
		}
		launch["outputMode"] = "remote"
	case "debugpy":
		programArgv = append([]string{av.Binary, p.Rel}, args...)
		launch["python"] = []string{av.Binary}
		launch["console"] = "internalConsole"
		launch["justMyCode"] = true
		launch["redirectOutput"] = true
	case "lldb":
		programArgv = append([]string{"./" + strings.TrimPrefix(p.Rel, "./")}, args...)
		launch["stopOnEntry"] = false
	}
	for _, check := range []struct {
		what string
		argv []string
	}{{"the " + a.ID + " adapter", adapterArgv}, {"the program", programArgv}} {
		v := policy.Check(ws, policy.Request{Argv: check.argv})
		if !v.Allowed {
			e := envelope.Errorf(envelope.CommandDenied, "%s (`%s`) is refused by the command policy: %s", check.what, envelope.QuoteArgv(check.argv), v.Message).With("reason", v.Reason)
			if v.Executable != "" {
				e.With("executable", v.Executable)
			}
			return envelope.Envelope{}, e
		}
	}
	resume := map[string]any{"action": "launch", "program": req.Program}
	if len(req.Args) > 0 {
		resume["args"] = req.Args
	}
	if req.Adapter != "" {
		resume["adapter"] = req.Adapter
	}
	shown := envelope.QuoteArgv(append([]string{p.Rel}, args...))
	d, err := gate.Check(ws, gate.Operation{
		Kind:  "command",
		Title: clip(fmt.Sprintf("Debug `%s` with %s", shown, a.ID), 200),
		Hash: gate.Hash(struct {
			Kind, Action, Adapter string
			AdapterArgv, Program  []string
		}{"command", "debug.launch", a.ID, adapterArgv, programArgv}),
		Resume: gate.Resume{Tool: "workspace_debug", Arguments: resume},
		Review: fmt.Sprintf("adapter: %s\nprogram: %s", envelope.QuoteArgv(adapterArgv), envelope.QuoteArgv(programArgv)),
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	call := launchCall{Adapter: a.ID, Argv: adapterArgv, Transport: a.Transport, Request: "launch", Arguments: launch,
		Program: p.Rel, Args: args, Cwd: ws.Root, WaitMs: wait, TTL: ws.Settings.Debug.TTLSeconds}
	return run(ctx, ws, call, d.Approval)
}

// run has the broker start the session, then consumes the approval.
func run(ctx context.Context, ws *workspace.Workspace, call launchCall, approval string) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(call.WaitMs)*time.Millisecond+2*time.Minute)
	defer cancel()
	var res statusResult
	if err := broker.Call(ctx, ws, "debug.launch", call, &res); err != nil {
		return envelope.Envelope{}, err
	}
	if err := gate.Consume(ws, approval); err != nil {
		return envelope.Envelope{}, err
	}
	return sessionEnvelope(ws, &res, call.Request+"ed"), nil
}

// Attach connects to a debug adapter on a loopback port, gated like a
// command.
func Attach(ctx context.Context, ws *workspace.Workspace, req *AttachRequest) (envelope.Envelope, error) {
	if req.Port < 1 || req.Port > 65535 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "port is 1 to 65535, got %d: the port a debug adapter listens on (dlv dap --listen 127.0.0.1:PORT, python3 -m debugpy --listen PORT)", req.Port)
	}
	wait, err := waitOf(req.WaitSeconds)
	if err != nil {
		return envelope.Envelope{}, err
	}
	id := req.Adapter
	if id == "" {
		id = "delve"
	}
	args := map[string]any{"port": req.Port}
	switch id {
	case "delve":
		args["mode"] = "remote"
	case "debugpy":
		args["justMyCode"] = true
	default:
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "attach knows the delve and debugpy adapters, not %q", id)
	}
	resume := map[string]any{"action": "attach", "port": req.Port}
	if req.Adapter != "" {
		resume["adapter"] = req.Adapter
	}
	d, err := gate.Check(ws, gate.Operation{
		Kind:  "command",
		Title: fmt.Sprintf("Attach the debugger (%s) to 127.0.0.1:%d", id, req.Port),
		Hash: gate.Hash(struct {
			Kind, Action, Adapter string
			Port                  int
		}{"command", "debug.attach", id, req.Port}),
		Resume: gate.Resume{Tool: "workspace_debug", Arguments: resume},
		Review: fmt.Sprintf("connect to the debug adapter at 127.0.0.1:%d", req.Port),
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	call := launchCall{Adapter: id, Transport: "tcp", Request: "attach", Arguments: args, Cwd: ws.Root, WaitMs: wait, TTL: ws.Settings.Debug.TTLSeconds}
	return run(ctx, ws, call, d.Approval)
}

// Control returns the engine function of continue, pause or a step.
func Control(command string) func(ctx context.Context, ws *workspace.Workspace, req *ControlRequest) (envelope.Envelope, error) {
	return func(ctx context.Context, ws *workspace.Workspace, req *ControlRequest) (envelope.Envelope, error) {
		wait, err := waitOf(req.WaitSeconds)
		if err != nil {
			return envelope.Envelope{}, err
		}
		ctx, cancel := context.WithTimeout(ctx, time.Duration(wait)*time.Millisecond+callTimeout)
		defer cancel()
		var res statusResult
		if err := query(ctx, ws, "debug.control", controlCall{Command: command, ThreadID: req.ThreadID, WaitMs: wait}, &res); err != nil {
			return envelope.Envelope{}, err
		}
		return sessionEnvelope(ws, &res, verbOf(command)), nil
	}
}

// query calls a running broker: a session lives only there, so no
// broker means no session (never a fresh broker to ask).
func query(ctx context.Context, ws *workspace.Workspace, method string, params, result any) error {
	running, err := broker.Query(ctx, ws, method, params, result)
	if err != nil {
		return err
	}
	if !running {
		return envelope.Errorf(envelope.TransactionState, "no debug session: the workspace's broker, which holds it, is not running (it ended, or was stopped); `aw debug launch PROGRAM` starts a new one")
	}
	return nil
}

// Threads lists the program's threads.
func Threads(ctx context.Context, ws *workspace.Workspace, _ *ThreadsRequest) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res struct {
		Threads []struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		} `json:"threads"`
	}
	if err := query(ctx, ws, "debug.threads", nil, &res); err != nil {
		return envelope.Envelope{}, err
	}
	if res.Threads == nil {
		res.Threads = nil
	}
	env := envelope.New("", fmt.Sprintf("%d threads", len(res.Threads)), res)
	for i, t := range res.Threads {
		if i == 5 {
			break
		}
		env.Fact("thread %d: %s", t.ID, clip(t.Name, 80))
	}
	return env, nil
}

// Stack lists a thread's frames (at most 30).
func Stack(ctx context.Context, ws *workspace.Workspace, req *StackRequest) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res stackResult
	if err := query(ctx, ws, "debug.stack", refCall{ThreadID: req.ThreadID}, &res); err != nil {
		return envelope.Envelope{}, err
	}
	summary := fmt.Sprintf("%d frames of thread %d", len(res.Frames), res.ThreadID)
	if res.Truncated {
		summary += fmt.Sprintf(" (of %d; the first %d shown)", res.TotalFrames, MaxFrames)
	}
	if len(res.Frames) > 0 {
		f := res.Frames[0]
		summary += fmt.Sprintf(": top %s at %s:%d", f.Function, f.File, f.Line)
	}
	env := envelope.New("", summary, res)
	for i, f := range res.Frames {
		if i == 3 {
			break
		}
		env.Fact("frame %d: %s %s:%d", f.ID, clip(f.Function, 80), f.File, f.Line)
	}
	return env, nil
}

// Scopes lists a frame's scopes.
func Scopes(ctx context.Context, ws *workspace.Workspace, req *ScopesRequest) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res struct {
		FrameID int     `json:"frameId"`
		Scopes  []Scope `json:"scopes"`
	}
	if err := query(ctx, ws, "debug.scopes", refCall{FrameID: req.FrameID}, &res); err != nil {
		return envelope.Envelope{}, err
	}
	var names []string
	for _, s := range res.Scopes {
		names = append(names, fmt.Sprintf("%s (reference %d)", s.Name, s.Reference))
	}
	env := envelope.New("", fmt.Sprintf("frame %d: %s", req.FrameID, strings.Join(names, ", ")), res)
	return env, nil
}

// Variables lists a reference's children (at most 50, values at most 400
// characters).
func Variables(ctx context.Context, ws *workspace.Workspace, req *VariablesRequest) (envelope.Envelope, error) {
	if req.Reference < 1 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "reference is a positive number from scopes, variables or evaluate, got %d", req.Reference)
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res struct {
		Reference int        `json:"reference"`
		Variables []Variable `json:"variables"`
		Truncated bool       `json:"truncated"`
	}
	if err := query(ctx, ws, "debug.variables", refCall{Reference: req.Reference}, &res); err != nil {
		return envelope.Envelope{}, err
	}
	var parts []string
	for i, v := range res.Variables {
		if i == 8 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, v.Name+" = "+clip(v.Value, 60))
	}
	summary := fmt.Sprintf("%d variables: %s", len(res.Variables), strings.Join(parts, ", "))
	if res.Truncated {
		summary = fmt.Sprintf("the first %d variables: %s", MaxVariables, strings.Join(parts, ", "))
	}
	return envelope.New("", summary, res), nil
}

// Evaluate evaluates an expression in a frame's scope.
func Evaluate(ctx context.Context, ws *workspace.Workspace, req *EvaluateRequest) (envelope.Envelope, error) {
	if strings.TrimSpace(req.Expression) == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "give an expression: `aw debug evaluate 'len(items)'`")
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res struct {
		Expression string   `json:"expression"`
		FrameID    int      `json:"frameId"`
		Result     Variable `json:"result"`
	}
	if err := query(ctx, ws, "debug.evaluate", refCall{Expr: req.Expression, FrameID: req.FrameID}, &res); err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", clip(req.Expression, 80)+" = "+clip(res.Result.Value, 200), res)
	return env, nil
}

// Output returns what the program wrote (bounded).
func Output(ctx context.Context, ws *workspace.Workspace, req *OutputRequest) (envelope.Envelope, error) {
	if req.Since < 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "since is a byte offset (0 or more), got %d", req.Since)
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res outputResult
	if err := query(ctx, ws, "debug.output", refCall{Since: req.Since}, &res); err != nil {
		return envelope.Envelope{}, err
	}
	summary := fmt.Sprintf("%d bytes of output in all; next since %d", res.Bytes, res.Next)
	if res.Truncated {
		summary += fmt.Sprintf(" (only the last %d characters shown)", MaxOutput)
	}
	env := envelope.New("", summary, res)
	env.Omit("data.text")
	return env, nil
}

// Terminate ends the session and its adapter.
func Terminate(ctx context.Context, ws *workspace.Workspace, _ *TerminateRequest) (envelope.Envelope, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res statusResult
	if err := query(ctx, ws, "debug.terminate", nil, &res); err != nil {
		return envelope.Envelope{}, err
	}
	return sessionEnvelope(ws, &res, "terminated"), nil
}

// sessionEnvelope says where the session is.
func sessionEnvelope(ws *workspace.Workspace, res *statusResult, did string) envelope.Envelope {
	for i := range res.Breakpoints {
		res.Breakpoints[i].File = ws.Rel(res.Breakpoints[i].File)
	}
	s := res.Session
	if s == nil {
		env := envelope.New("", fmt.Sprintf("no debug session yet (%d files with breakpoints)", len(res.Breakpoints)), res)
		env.Fact("debug: no session")
		return env
	}
	var where string
	switch s.State {
	case Stopped:
		where = "stopped"
		if s.Stop != nil {
			where += " (" + s.Stop.Reason + ")"
			if s.Stop.File != "" {
				where += fmt.Sprintf(" at %s:%d", s.Stop.File, s.Stop.Line)
			}
			if s.Stop.Function != "" {
				where += " in " + s.Stop.Function
			}
			where += fmt.Sprintf(", thread %d", s.Stop.ThreadID)
		}
	case Exited:
		where = "the program exited"
		if s.ExitCode != nil {
			where += fmt.Sprintf(" with code %d", *s.ExitCode)
		}
	case Running:
		where = "running (not stopped yet: `aw debug status`, or `aw debug pause`)"
	default:
		where = s.State + suffix(s.Detail)
	}
	prefix := ""
	if did != "" {
		prefix = did + " · "
	}
	summary := fmt.Sprintf("%ssession %s (%s, %s): %s", prefix, s.ID, s.Adapter, s.Program, where)
	if !res.Current && did == "" {
		summary = "no debug session running; the last one " + summary[len("session "):]
	}
	env := envelope.New("", summary, res)
	env.Fact("debug session %s: %s", s.ID, s.State)
	if s.Stop != nil && s.Stop.File != "" {
		env.Fact("stopped at %s:%d (frame %d)", s.Stop.File, s.Stop.Line, s.Stop.FrameID)
	}
	if len(s.Sandbox) > 0 {
		var rep struct {
			Mechanism string `json:"mechanism"`
		}
		json.Unmarshal(s.Sandbox, &rep)
		env.Fact("sandbox: %s", rep.Mechanism)
	}
	return env
}
