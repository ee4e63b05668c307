package dispatch

import (
	"github.com/agentic-workspace/aw/engine/notes"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Notes are store state, not workspace files: never gated, and writable at
// the read tier (they change nothing an agent could run or ship).
func notesActions() []*Action {
	return []*Action{
		Bind(Notes, "write", workspace.TierRead, "", "Write a note or the workspace memory (replaces it)", notes.Write),
		Bind(Notes, "append", workspace.TierRead, "", "Append to a note or the workspace memory after a blank line", notes.Append),
		Bind(Notes, "read", workspace.TierRead, "", "Read a note or the workspace memory", notes.Read),
		Bind(Notes, "list", workspace.TierRead, "", "List notes and whether the workspace memory exists", notes.List),
		Bind(Notes, "delete", workspace.TierRead, "", "Delete a note (the memory cannot be deleted)", notes.Delete),
	}
}
