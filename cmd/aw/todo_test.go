package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTodoChecklist: todo write replaces the checklist whole, numbers
// items without ids, read returns it with counts, inspect changes shows
// it, the MCP form (aw call) is the same action, and every bad item is
// INVALID_INPUT naming the item.
func TestTodoChecklist(t *testing.T) {
	dir := t.TempDir()
	items := filepath.Join(t.TempDir(), "items.json")
	os.WriteFile(items, []byte(`{"todos":[{"content":"read the code","status":"completed"},{"content":"fix the bug","status":"in_progress"},{"content":"run the tests"}]}`), 0o644)
	w := runAW(t, dir, nil, "tasks", "todo", "write", "--input", items)
	if w.Code != 0 || w.field(t, ".data.todos.2.id") != "3" || w.field(t, ".data.todos.2.status") != "pending" || w.field(t, ".data.counts.inProgress") != 1.0 {
		t.Fatalf("todo write: %s", w.Stdout)
	}
	r := runAW(t, dir, nil, "tasks", "todo", "read")
	for path, want := range map[string]any{".data.counts.total": 3.0, ".data.counts.completed": 1.0, ".data.counts.pending": 1.0, ".data.todos.1.content": "fix the bug", ".data.path": ".agentic/tasks/todo.json"} {
		if got := r.field(t, path); got != want {
			t.Errorf("todo read %s = %v, want %v", path, got, want)
		}
	}
	if c := runAW(t, dir, nil, "inspect", "changes"); c.field(t, ".data.todo.total") != 3.0 || c.field(t, ".data.todo.inProgress") != 1.0 || len(c.field(t, ".data.taskBoards").([]any)) != 0 {
		t.Errorf("inspect changes must show the checklist (and no board): %s", c.Stdout)
	}
	// Replace-all through the tool call form.
	call := runAW(t, dir, nil, "call", "workspace_tasks", `{"action":"todo_write","todos":[{"id":"a","content":"only this"}]}`)
	if call.Code != 0 || call.field(t, ".data.counts.total") != 1.0 {
		t.Fatalf("todo_write by call: %s", call.Stdout)
	}
	if r := runAW(t, dir, nil, "call", "workspace_tasks", `{"action":"todo_read"}`); r.field(t, ".data.todos.0.id") != "a" || len(r.field(t, ".data.todos").([]any)) != 1 {
		t.Errorf("todo_read after a replace: %s", r.Stdout)
	}
	many := make([]map[string]string, 101)
	for i := range many {
		many[i] = map[string]string{"content": fmt.Sprint("item ", i)}
	}
	tooMany, _ := json.Marshal(map[string]any{"todos": many})
	for _, bad := range []struct{ req, item, field string }{
		{`{"todos":[{"content":"ok"},{"content":"x","status":"done"}]}`, "2", "status"},
		{`{"todos":[{"content":"ok"},{"status":"pending"}]}`, "2", "content"},
		{`{"todos":[{"id":"1","content":"a"},{"content":"b"},{"id":"1","content":"c"}]}`, "3", "id"},
		{`{}`, "", "todos"},
		{string(tooMany), "", "todos"},
	} {
		r := runAW(t, dir, []byte(bad.req), "tasks", "todo", "write", "--input", "-")
		if r.Code != 2 || r.field(t, ".error.code") != "INVALID_INPUT" || r.field(t, ".error.details.field") != bad.field {
			t.Errorf("%s: exit %d %s", bad.req[:min(len(bad.req), 80)], r.Code, r.Stdout)
			continue
		}
		if bad.item != "" && !strings.Contains(r.field(t, ".error.message").(string), "item "+bad.item) {
			t.Errorf("the refusal must name item %s: %s", bad.item, r.field(t, ".error.message"))
		}
	}
	if r := runAW(t, dir, nil, "tasks", "todo", "read"); r.field(t, ".data.counts.total") != 1.0 {
		t.Errorf("a refused write must leave the checklist as it was: %s", r.Stdout)
	}
}
