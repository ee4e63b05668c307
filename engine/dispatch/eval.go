package dispatch

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/eval"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Eval is workspace_eval: persistent interpreter cells held by the broker.
var Eval = &Tool{Name: "workspace_eval", Noun: "eval", Short: "Persistent Python and JavaScript cells",
	Use:     "Run Python (or JavaScript: language javascript) the way a notebook does: variables, imports and loaded data survive between calls, the value of a last expression is echoed, display() works, a pandas frame comes back as a table and a matplotlib figure as a PNG artifact. Inside a cell, tool(name, args) calls this workspace's own tools (tool(\"read\", {\"path\": \"README.md\"}) returns the read's data) under the same rules as your calls; !cmd and %%bash lines run through the command policy like command run. Give a 5-10 word description. The cell is interrupted after 5 minutes without output (bridged calls do not count); reset starts clean. Gated like a command run.",
	Enabled: setting("commands.enabled", func(s *workspace.Settings) bool { return s.Commands.Enabled })}

func evalActions() []*Action {
	return []*Action{
		Bind(Eval, "run", workspace.TierExec, "command", "Run a cell in the workspace's persistent interpreter (gated like a command run)", func(ctx context.Context, ws *workspace.Workspace, req *eval.Request) (envelope.Envelope, error) {
			return eval.Run(ctx, ws, req, bridgeTo)
		}).Does(Writes | Destroys | Network),
	}
}

// bridgeTo is bridge, set at init: bridge runs actions of the table that
// holds it, a cycle Go's variable initialization would refuse.
var bridgeTo eval.Bridge

func init() { bridgeTo = bridge }

// bridge runs a cell's tool(name, args) through the table, as a call of
// the cell's caller: the same workspace, tier, gate and approvals. name
// is a tool ("workspace_inspect", with the action in args), "noun.action"
// ("inspect.read"), or an action alone, which names the first tool in
// the table that has it ("read" is inspect.read).
func bridge(ctx context.Context, ws *workspace.Workspace, name string, args json.RawMessage) envelope.Envelope {
	row, err := bridged(name, args)
	if err != nil {
		return envelope.Fail("eval.tool", err)
	}
	if row.Tool == Eval || row.Tool == Debug {
		return envelope.Fail(row.Operation(), envelope.Errorf(envelope.InvalidInput, "a cell cannot call %s: the cell would wait on itself", row.Operation()))
	}
	req, err := row.Decode(args)
	if err != nil {
		return envelope.Fail(row.Operation(), err)
	}
	return row.Run(ctx, ws, req)
}

func bridged(name string, args json.RawMessage) (*Action, error) {
	if noun, action, ok := strings.Cut(name, "."); ok {
		return Find(noun, action)
	}
	if strings.HasPrefix(name, "workspace_") {
		var a struct {
			Action string `json:"action"`
		}
		json.Unmarshal(args, &a)
		if a.Action == "" {
			return nil, envelope.Errorf(envelope.InvalidInput, "tool(%q, args) needs args[\"action\"], or name the action: tool(\"inspect.read\", {...})", name)
		}
		return Find(name, a.Action)
	}
	for _, a := range Table() {
		if a.Name == strings.ReplaceAll(name, "-", "_") && a.Tool.Name != "" {
			return a, nil
		}
	}
	return nil, envelope.Errorf(envelope.InvalidInput, "no tool action is called %q: name it as noun.action (\"inspect.read\", \"edit.apply\", \"command.run\") or as a workspace_* tool with args[\"action\"]", name)
}
