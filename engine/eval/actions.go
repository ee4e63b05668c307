// Package eval is aw eval: Python cells whose variables, imports and data
// survive between calls, in one long-lived interpreter per language held
// by the workspace's broker. A small driver (driver.py) runs the cells and
// speaks JSON lines with the broker over the interpreter's own pipes; a
// cell's tool(name, args) is one of those lines, which the broker hands
// back over the socket to the aw call running the cell, where it goes
// through the dispatch table like any call (jail, tier, gate, approvals).
// No port, no secret.
//
// Decisions where the product contract is silent:
//   - Every cell is gated like a command run (kind command): the approval
//     covers the language, the code and whether the interpreter is reset.
//   - The interpreter runs in the OS sandbox with a command's rules (the
//     workspace read-write under the carve-outs) and its own temporary
//     directory under .agentic/eval/. python3 must pass the command policy.
//   - `!cmd` and `%%bash` lines become tool("command.run", {"line": ...}):
//     the command policy, the gate and the sandbox apply to them as to
//     `aw command run --line`. `%pip` is `python3 -m pip` the same way.
//   - The inactivity budget (eval.timeoutSeconds, default 300; --timeout
//     narrows it) restarts with every output and is suspended while a
//     bridged call is outstanding. When it runs out the cell gets a
//     KeyboardInterrupt (state kept); an interpreter that ignores it for
//     3 seconds is killed (state lost, and the envelope says so).
//   - An exception in a cell is data (ok, with data.error and a traceback
//     of the cell's own frames), as a failing command is; a timeout is a
//     TIMEOUT error.
//   - tool() inside a cell cannot call eval or debug (the cell would wait
//     on itself; a session is not parallel-safe).
//   - JavaScript cells run in a vm context of one node (driver.js): var,
//     let, const and functions persist; the last expression is the
//     script's completion value. node runs a cell synchronously, so a
//     JavaScript cell past its budget cannot be interrupted: it is killed
//     (its state lost, and the envelope says so). A child process a
//     JavaScript cell starts with inherited stdio writes into the
//     protocol: at worst it ends its own cell early or asks for a tool
//     call, which the gate still judges.
package eval

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/policy"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Request is the seed's argument object.
type Request struct {
	Code           string   `json:"code" doc:"the cell: Python statements; the value of a last expression is echoed"`
	Description    string   `json:"description" doc:"5-10 words saying what the cell does (the transcript's label)"`
	Language       string   `json:"language,omitempty" doc:"python (default) or javascript"`
	Reset          bool     `json:"reset,omitempty" doc:"discard the interpreter and start clean first"`
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" doc:"seconds the cell may go without output before it is interrupted (default and cap: eval.timeoutSeconds; bridged tool calls do not count)"`
}

// Bridge runs a cell's tool(name, args) as a call of the same caller.
type Bridge func(ctx context.Context, ws *workspace.Workspace, name string, args json.RawMessage) envelope.Envelope

// Data is eval's envelope data.
type Data struct {
	*cellResult
	Description string `json:"description"`
}

// Run runs one cell, gated like a command.
func Run(ctx context.Context, ws *workspace.Workspace, req *Request, bridge Bridge) (envelope.Envelope, error) {
	if req.Language == "" {
		req.Language = "python"
	}
	switch {
	case req.Language != "python" && req.Language != "javascript":
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "language is python or javascript, got %q", req.Language)
	case strings.TrimSpace(req.Description) == "":
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "description is required: 5-10 words saying what the cell does (--description 'load the sales table')")
	case len(req.Description) > 200:
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "description is 5-10 words, not %d characters", len(req.Description))
	case strings.TrimSpace(req.Code) == "" && !req.Reset:
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "no code: pass the cell as an argument, on stdin (aw eval - < cell.py) or as code in --input; --reset alone restarts the interpreter")
	case strings.ContainsRune(req.Code, 0):
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "the cell contains a NUL byte; remove it")
	}
	limit := ws.Settings.Eval.TimeoutSeconds
	budget := float64(limit)
	if req.TimeoutSeconds != nil {
		if *req.TimeoutSeconds <= 0 || *req.TimeoutSeconds > float64(limit) {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "timeout_seconds is more than 0 and at most eval.timeoutSeconds (%d), got %g", limit, *req.TimeoutSeconds)
		}
		budget = *req.TimeoutSeconds
	}
	exe := interpreters[req.Language].Executable
	argv := []string{exe, "(the aw eval driver)"}
	if v := policy.Check(ws, policy.Request{Argv: argv}); !v.Allowed {
		return envelope.Envelope{}, envelope.Errorf(envelope.CommandDenied, "%s cells run %s, which the command policy refuses: %s", req.Language, exe, v.Message).With("reason", v.Reason).With("executable", exe)
	}
	resume := map[string]any{"code": req.Code, "description": req.Description}
	if req.Language != "python" {
		resume["language"] = req.Language
	}
	if req.Reset {
		resume["reset"] = true
	}
	if req.TimeoutSeconds != nil {
		resume["timeout_seconds"] = *req.TimeoutSeconds
	}
	d, err := gate.Check(ws, gate.Operation{
		Kind:  "command",
		Title: envelope.Clip(fmt.Sprintf("Run a %s cell: %s", req.Language, req.Description), 200),
		Hash: gate.Hash(struct {
			Kind, Action, Language, Code string
			Reset                        bool
		}{"command", "eval", req.Language, req.Code, req.Reset}),
		Resume: gate.Resume{Tool: "workspace_eval", Arguments: resume},
		Review: envelope.Clip(req.Code, 4000),
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	serve := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method != "eval.tool" {
			return nil, envelope.Errorf(envelope.InvalidInput, "aw answers only eval.tool, not %s", method)
		}
		var c toolCall
		if err := json.Unmarshal(params, &c); err != nil {
			return nil, err
		}
		return bridge(ctx, ws, c.Name, c.Args), nil
	}
	ctx, cancel := context.WithTimeout(ctx, 24*time.Hour) // the budget is inactivity, not length
	defer cancel()
	var res cellResult
	call := runCall{Language: req.Language, Code: req.Code, Reset: req.Reset, TimeoutMs: int(budget * 1000)}
	if err := broker.CallServing(ctx, ws, "eval.run", call, &res, serve); err != nil {
		return envelope.Envelope{}, err
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	return cellEnvelope(ws, req, &res, budget)
}

func cellEnvelope(ws *workspace.Workspace, req *Request, res *cellResult, budget float64) (envelope.Envelope, error) {
	var arts []envelope.Artifact
	for i := range res.Displays {
		d := &res.Displays[i]
		if d.Mime != "image/png" {
			continue
		}
		png, err := base64.StdEncoding.DecodeString(d.Data)
		if err != nil {
			continue
		}
		a, err := ws.Store.WriteArtifact("image", fmt.Sprintf("figure-%d.png", i+1), png, "a figure the cell drew")
		if err != nil {
			return envelope.Envelope{}, err
		}
		arts = append(arts, a)
		d.Data = a.Path
	}
	if res.TimedOut {
		what := "the cell was interrupted; the interpreter's variables are kept"
		if res.Restarted {
			what = "the interpreter did not stop when interrupted and was killed: its variables are gone (the next cell starts clean)"
		}
		e := envelope.Errorf(envelope.Timeout, "the cell wrote nothing for %gs (the inactivity budget: eval.timeoutSeconds, or --timeout): %s; output so far: %s", budget, what, envelope.Clip(res.Stdout+res.Stderr, 2000))
		e.With("restarted", res.Restarted)
		return envelope.Envelope{}, e
	}
	label := fmt.Sprintf("cell %d (%s %s)", res.Cell, res.Language, res.Version)
	var summary string
	switch {
	case res.Error != nil:
		summary = fmt.Sprintf("%s raised %s: %s", label, res.Error.Name, envelope.Clip(res.Error.Value, 200))
		if res.Restarted {
			summary += " (the interpreter died: its variables are gone)"
		}
	case res.Result != nil && res.Result.Table:
		summary = label + " → a table (data.result.data)"
	case res.Result != nil:
		summary = label + " → " + envelope.Clip(res.Result.Data, 200)
	case strings.TrimSpace(req.Code) == "":
		summary = fmt.Sprintf("started a clean %s interpreter", res.Language)
	default:
		summary = label + " ran"
		if res.Stdout != "" {
			summary += "; stdout: " + envelope.Clip(strings.TrimSpace(res.Stdout), 160)
		}
	}
	env := envelope.New("", summary, Data{cellResult: res, Description: req.Description})
	env.Artifacts = arts
	env.Fact("eval %s: %s", res.Language, envelope.Clip(req.Description, 80))
	if res.Fresh {
		env.Fact("a fresh interpreter: nothing from earlier cells is defined")
	}
	if res.ToolCalls > 0 {
		env.Fact("%d bridged tool calls", res.ToolCalls)
	}
	env.Omit("data.stdout", "data.stderr", "data.displays")
	return env, nil
}
