package dispatch

import (
	"github.com/agentic-workspace/aw/engine/config"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// config is aw's own noun, not a workspace_* tool: it is not offered over MCP.
// set and init write .agentic/: the write tier, human or not.
func configActions() []*Action {
	set := Bind(Config, "set", workspace.TierWrite, "", "Set a setting in .agentic/config.json (a human verb)", config.Set).Does(Writes | Destroys | Idempotent)
	set.Human = true
	return []*Action{
		Bind(Config, "list", workspace.TierRead, "", "List every setting with its effective value", config.List),
		Bind(Config, "get", workspace.TierRead, "", "Print one setting", config.Get),
		set,
		Bind(Config, "init", workspace.TierWrite, "", "Create .agentic/ with a commented default config", config.Init).Does(Writes | Idempotent),
	}
}
