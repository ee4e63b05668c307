package tasks

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The session checklist (todo_write / todo_read): one flat list per
// workspace, replaced whole by every write, in .agentic/tasks/todo.json
// beside the boards. Unlike a board it has no dependencies or history: it
// is the agent's visible plan for the session.
//
// Decisions: an item without an id gets its 1-based position ("1", "2",
// …); ids given must be unique; statuses are pending, in_progress and
// completed only; content is required and at most MaxText bytes.
const (
	MaxTodos = 100
	todoFile = "todo.json"
)

// Todo is one checklist item.
type Todo struct {
	ID      string `json:"id,omitempty" doc:"a unique id of at most 64 characters; default: the item's 1-based position"`
	Content string `json:"content" doc:"what is to be done, at most 2000 bytes"`
	Status  string `json:"status,omitempty" doc:"its state; default pending" enum:"pending,in_progress,completed"`
}

// TodoList is .agentic/tasks/todo.json. inspect changes reads its todos'
// statuses.
type TodoList struct {
	Todos     []Todo    `json:"todos"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// TodoCounts counts the checklist by status.
type TodoCounts struct {
	Total      int `json:"total"`
	Pending    int `json:"pending"`
	InProgress int `json:"inProgress"`
	Completed  int `json:"completed"`
}

// TodoWriteRequest replaces the checklist with todos.
type TodoWriteRequest struct {
	Todos []Todo `json:"todos" doc:"the complete checklist, at most 100 items, replacing the previous one ([] clears it)"`
}

// TodoReadRequest has no arguments.
type TodoReadRequest struct{}

// TodoData is data of todo_write and todo_read.
type TodoData struct {
	Todos  []Todo     `json:"todos"`
	Counts TodoCounts `json:"counts"`
	Path   string     `json:"path"`
}

func todoPath(ws *workspace.Workspace) string { return ws.Store.Path("tasks", todoFile) }

// CountTodos counts todos by status.
func CountTodos(todos []Todo) TodoCounts {
	c := TodoCounts{Total: len(todos)}
	for _, t := range todos {
		switch t.Status {
		case Pending:
			c.Pending++
		case InProgress:
			c.InProgress++
		case Completed:
			c.Completed++
		}
	}
	return c
}

// TodoWrite replaces the workspace's checklist.
func TodoWrite(ctx context.Context, ws *workspace.Workspace, req *TodoWriteRequest) (envelope.Envelope, error) {
	if req.Todos == nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, `todo_write needs "todos": the complete list, e.g. {"todos":[{"content":"Fix the bug","status":"in_progress"}]} (an empty list clears it)`).With("field", "todos")
	}
	if len(req.Todos) > MaxTodos {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "the checklist has %d items, more than %d: merge or drop items", len(req.Todos), MaxTodos).With("field", "todos")
	}
	todos := make([]Todo, len(req.Todos))
	seen := map[string]int{}
	for i, t := range req.Todos {
		n := i + 1
		if t.ID == "" {
			t.ID = strconv.Itoa(n)
		}
		if len(t.ID) > 64 {
			return envelope.Envelope{}, todoErr(n, "its id is longer than 64 characters", "id")
		}
		if first, dup := seen[t.ID]; dup {
			return envelope.Envelope{}, todoErr(n, fmt.Sprintf("its id %q is also item %d's; ids must be unique (omit them to number the items 1, 2, …)", t.ID, first), "id")
		}
		seen[t.ID] = n
		if t.Content == "" {
			return envelope.Envelope{}, todoErr(n, "it has no content; say what is to be done", "content")
		}
		if len(t.Content) > MaxText {
			return envelope.Envelope{}, todoErr(n, fmt.Sprintf("its content is %d bytes, more than %d", len(t.Content), MaxText), "content")
		}
		if t.Status == "" {
			t.Status = Pending
		}
		if t.Status != Pending && t.Status != InProgress && t.Status != Completed {
			return envelope.Envelope{}, todoErr(n, fmt.Sprintf("its status %q is not one of pending, in_progress, completed", t.Status), "status")
		}
		todos[i] = t
	}
	err := store.Update(ws.Store, todoPath(ws), func(l *TodoList) error {
		*l = TodoList{Todos: todos, UpdatedAt: time.Now().UTC()}
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	return todoEnvelope(ws, "Checklist replaced", todos), nil
}

func todoErr(n int, what, field string) error {
	return envelope.Errorf(envelope.InvalidInput, "checklist item %d is refused: %s", n, what).With("item", n).With("field", field)
}

// TodoRead returns the workspace's checklist with its counts.
func TodoRead(ctx context.Context, ws *workspace.Workspace, req *TodoReadRequest) (envelope.Envelope, error) {
	l, err := ReadTodos(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	return todoEnvelope(ws, "Checklist", l.Todos), nil
}

// ReadTodos loads the checklist (empty when none was written).
func ReadTodos(ws *workspace.Workspace) (TodoList, error) {
	var l TodoList
	if _, err := ws.Store.ReadJSON(todoPath(ws), &l); err != nil {
		return l, err
	}
	if l.Todos == nil {
		l.Todos = []Todo{}
	}
	return l, nil
}

func todoEnvelope(ws *workspace.Workspace, what string, todos []Todo) envelope.Envelope {
	c := CountTodos(todos)
	summary := fmt.Sprintf("%s: %d items (%d pending, %d in progress, %d completed).", what, c.Total, c.Pending, c.InProgress, c.Completed)
	env := envelope.New("", summary, TodoData{Todos: todos, Counts: c, Path: ws.Store.Rel(todoPath(ws))})
	env.Fact("checklist: %d items, %d pending, %d in progress, %d completed", c.Total, c.Pending, c.InProgress, c.Completed)
	for _, t := range todos {
		if t.Status == InProgress {
			env.Fact("checklist item %s in progress: %s", t.ID, envelope.Clip(t.Content, 120))
		}
	}
	return env
}
