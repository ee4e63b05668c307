package schema

import (
	"context"

	"github.com/agentic-workspace/aw/engine/agent"
	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// A sub-agent's tools are the ones aw mcp offers, with the same schemas,
// and its calls take the same path (the dispatch row's Run). The toolbox
// lives here because this package sees both the table and the schemas.
func init() { agent.Tools = toolbox{} }

type toolbox struct{}

// AskTool is the name a run's question tool has: aw's own ask row (not a
// workspace_* tool) offered under the name agents know it by.
const AskTool = "ask_user"

func (toolbox) Offer(ws *workspace.Workspace, allow func(tool, action string) bool) []agent.OfferedTool {
	var out []agent.OfferedTool
	infos := dispatch.Registered(ws)
	if allow(AskTool, "ask") {
		infos = append(infos, workspace.ToolInfo{Name: AskTool, Actions: []string{"ask"}})
	}
	for _, info := range infos {
		var rows []*dispatch.Action
		for _, name := range info.Actions {
			if !allow(info.Name, name) {
				continue
			}
			if row, err := dispatch.Find(rowTool(info.Name), name); err == nil {
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			continue
		}
		t := Build(rows)
		var def agent.ToolDef
		def.Type = "function"
		def.Function.Name, def.Function.Description, def.Function.Parameters = info.Name, t.Description, t.InputSchema
		writes, repeatable := map[string]bool{}, map[string]bool{}
		for _, r := range rows {
			if r.Effect&dispatch.Writes != 0 {
				writes[r.Name] = true
			}
			if r.Effect&dispatch.Writes == 0 || r.Effect&dispatch.Idempotent != 0 {
				repeatable[r.Name] = true
			}
		}
		out = append(out, agent.OfferedTool{Name: info.Name, Actions: t.Actions, Writes: writes, Repeatable: repeatable, Def: def})
	}
	return out
}

func (toolbox) Call(ctx context.Context, ws *workspace.Workspace, tool, action string, args []byte) envelope.Envelope {
	row, err := dispatch.Find(rowTool(tool), action)
	if err != nil {
		return envelope.Fail(tool+"."+action, err)
	}
	req, err := row.Decode(args)
	if err != nil {
		return envelope.Fail(row.Operation(), err)
	}
	return row.Run(ctx, ws, req)
}

// rowTool is the table's name for a tool a run is offered.
func rowTool(name string) string {
	if name == AskTool {
		return dispatch.Ask.Noun
	}
	return name
}
