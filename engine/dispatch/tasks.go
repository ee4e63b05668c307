package dispatch

import (
	"github.com/agentic-workspace/aw/engine/tasks"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Boards are store state like notes: never gated, callable at the read
// tier (they change nothing an agent could run or ship).
func tasksActions() []*Action {
	return []*Action{
		Bind(Tasks, "create", workspace.TierRead, "", "Create a board with its first items (depends_on may name positions of the call)", tasks.Create),
		Bind(Tasks, "list", workspace.TierRead, "", "List boards, newest first", tasks.List),
		Bind(Tasks, "show", workspace.TierRead, "", "Show a board, or one of its checkpoints", tasks.Show),
		Bind(Tasks, "add", workspace.TierRead, "", "Add items to a board (depends_on may name positions of the call)", tasks.Add),
		Bind(Tasks, "update", workspace.TierRead, "", "Update one item: text, status, priority, details, depends_on (item_ ids), evidence (appended)", tasks.Update),
		Bind(Tasks, "remove", workspace.TierRead, "", "Remove one item (refused while others depend on it, unless detach)", tasks.Remove),
		Bind(Tasks, "note", workspace.TierRead, "", "Add a dated note to a board", tasks.AddNote),
		Bind(Tasks, "checkpoint", workspace.TierRead, "", "Record a checkpoint_ snapshot of a board's items", tasks.RecordCheckpoint),
		Bind(Tasks, "next", workspace.TierRead, "", "The highest-priority pending item whose dependencies are completed", tasks.Next),
		Bind(Tasks, "archive", workspace.TierRead, "", "Archive a board (read-only, hidden from list)", tasks.Archive),
		Bind(Tasks, "reopen", workspace.TierRead, "", "Reopen an archived board", tasks.Reopen),
	}
}
