package dispatch

import (
	"github.com/agentic-workspace/aw/engine/gc"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// store is aw's own noun: `aw gc` prunes .agentic/ now, a human verb (it
// removes records an agent might still want; the human decides when).
func storeActions() []*Action {
	g := Bind(Store, "gc", workspace.TierWrite, "", "Prune old transactions, artifacts, job logs, browser profiles and sub-agent runs of .agentic/ now and report what was freed (a human verb)", gc.Run).Does(Writes | Destroys)
	g.Human = true
	return []*Action{g}
}
