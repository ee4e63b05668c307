package dispatch

import (
	"github.com/agentic-workspace/aw/engine/tasks"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Boards are store state like notes: never gated; reading them is the read
// tier, changing them the write tier (a board is a to-do list the next
// agent follows).
func tasksActions() []*Action {
	return []*Action{
		Bind(Tasks, "create", workspace.TierWrite, "", "Create a board with its first items (depends_on may name positions of the call)", tasks.Create).Does(Writes),
		Bind(Tasks, "list", workspace.TierRead, "", "List boards, newest first", tasks.List),
		Bind(Tasks, "show", workspace.TierRead, "", "Show a board, or one of its checkpoints", tasks.Show),
		Bind(Tasks, "add", workspace.TierWrite, "", "Add items to a board (depends_on may name positions of the call)", tasks.Add).Does(Writes),
		Bind(Tasks, "update", workspace.TierWrite, "", "Update one item: text, status, priority, details, depends_on (item_ ids), evidence (appended)", tasks.Update).Does(Writes | Destroys),
		Bind(Tasks, "remove", workspace.TierWrite, "", "Remove one item (refused while others depend on it, unless detach)", tasks.Remove).Does(Writes | Destroys | Idempotent),
		Bind(Tasks, "note", workspace.TierWrite, "", "Add a dated note to a board", tasks.AddNote).Does(Writes),
		Bind(Tasks, "checkpoint", workspace.TierWrite, "", "Record a checkpoint_ snapshot of a board's items", tasks.RecordCheckpoint).Does(Writes),
		Bind(Tasks, "next", workspace.TierRead, "", "The highest-priority pending item whose dependencies are completed", tasks.Next),
		Bind(Tasks, "archive", workspace.TierWrite, "", "Archive a board (read-only, hidden from list)", tasks.Archive).Does(Writes | Idempotent),
		Bind(Tasks, "reopen", workspace.TierWrite, "", "Reopen an archived board", tasks.Reopen).Does(Writes | Idempotent),
		// The session checklist is the caller's own plan, not a list the next
		// agent follows: a read-only reviewer keeps one too.
		Bind(Tasks, "todo_write", workspace.TierRead, "", "Replace the session checklist: todos [{id?, content, status pending|in_progress|completed}], at most 100", tasks.TodoWrite).Does(Writes | Destroys | Idempotent),
		Bind(Tasks, "todo_read", workspace.TierRead, "", "The session checklist with its counts", tasks.TodoRead),
	}
}
