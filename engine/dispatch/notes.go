package dispatch

import (
	"github.com/agentic-workspace/aw/engine/notes"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Notes are store state, not workspace files: never gated. Writing them
// needs the write tier: notes and MEMORY.md are what the next agent reads
// as instructions, so a read-only caller must not be able to plant them.
func notesActions() []*Action {
	return []*Action{
		Bind(Notes, "write", workspace.TierWrite, "", "Write a note or the workspace memory (replaces it)", notes.Write).Does(Writes | Destroys | Idempotent),
		Bind(Notes, "append", workspace.TierWrite, "", "Append to a note or the workspace memory after a blank line", notes.Append).Does(Writes),
		Bind(Notes, "read", workspace.TierRead, "", "Read a note or the workspace memory", notes.Read),
		Bind(Notes, "list", workspace.TierRead, "", "List notes and whether the workspace memory exists", notes.List),
		Bind(Notes, "delete", workspace.TierWrite, "", "Delete a note (the memory cannot be deleted)", notes.Delete).Does(Writes | Destroys | Idempotent),
	}
}
