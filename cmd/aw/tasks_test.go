package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestTasksConcurrentUpdates runs 20 `aw tasks update` processes at once on
// one board: each appends its own evidence (half of them to one shared
// item) and changes its own item's status. Every change must be on disk
// afterwards: the store lock serialises the read-modify-writes.
func TestTasksConcurrentUpdates(t *testing.T) {
	dir := t.TempDir()
	const n = 20
	args := []string{"tasks", "create", "race"}
	for i := 0; i < n; i++ {
		args = append(args, "--item", fmt.Sprintf("item %d", i))
	}
	res := runAW(t, dir, nil, args...)
	if res.Code != 0 {
		t.Fatalf("create: %s", res.Stdout)
	}
	board := res.field(t, ".data.board.id").(string)
	var ids []string
	for _, id := range res.field(t, ".data.added").([]any) {
		ids = append(ids, id.(string))
	}
	shared := ids[0]

	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			target := ids[i]
			if i%2 == 0 {
				target = shared
			}
			r := runAW(t, dir, nil, "tasks", "update", board, target, "--evidence", fmt.Sprintf("evidence-%d", i))
			if r.Code != 0 {
				errs <- fmt.Sprintf("update %d: %s", i, r.Stdout)
				return
			}
			if i%2 == 1 {
				r = runAW(t, dir, nil, "tasks", "update", board, ids[i], "--status", "completed")
				if r.Code != 0 {
					errs <- fmt.Sprintf("status %d: %s", i, r.Stdout)
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "tasks", board, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Items []struct {
			ID       string   `json:"id"`
			Status   string   `json:"status"`
			Evidence []string `json:"evidence"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	var evidence []string
	for i, it := range state.Items {
		evidence = append(evidence, it.Evidence...)
		if i%2 == 1 && it.Status != "completed" {
			t.Errorf("%s is %s, want completed", it.ID, it.Status)
		}
	}
	for i := 0; i < n; i++ {
		if !slices.Contains(evidence, fmt.Sprintf("evidence-%d", i)) {
			t.Errorf("evidence-%d was lost; the board holds %v", i, evidence)
		}
	}
	if len(evidence) != n {
		t.Errorf("%d evidence entries, want %d", len(evidence), n)
	}
	if got := len(state.Items[0].Evidence); got != n/2 {
		t.Errorf("the shared item holds %d evidence entries, want %d", got, n/2)
	}
	// No temp file of an atomic write is left behind.
	entries, _ := os.ReadDir(filepath.Join(dir, ".agentic", "tasks", board))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".aw-") {
			t.Errorf("stray temp file %s", e.Name())
		}
	}
}

// TestTasksDependencyRulesBinary runs the dependency rules through the
// binary and `aw call`, so the CLI's --item parsing and the JSON form reach
// the same checks (the full table is engine/tasks TestDependencyRules).
func TestTasksDependencyRulesBinary(t *testing.T) {
	dir := t.TempDir()
	base := runAW(t, dir, nil, "tasks", "create", "base", "--item", "a")
	board := base.field(t, ".data.board.id").(string)
	first := base.field(t, ".data.added.0").(string)
	cases := []struct {
		name string
		args []string
		code int
		want string // in error.message, or "" for success
	}{
		{"forward position", []string{"tasks", "create", "t", "--item", `{"text":"x","depends_on":["2"]}`, "--item", "y"}, 0, ""},
		{"out of range", []string{"tasks", "create", "t", "--item", `{"text":"x","depends_on":["2"]}`}, 2, `"2": position 2 is outside 1..1`},
		{"self", []string{"tasks", "create", "t", "--item", "x", "--item", `{"text":"y","depends_on":["2"]}`}, 2, `"2" names the item itself`},
		{"cycle", []string{"tasks", "create", "t", "--item", `{"text":"x","depends_on":["2"]}`, "--item", `{"text":"y","depends_on":["1"]}`}, 2, "makes a cycle"},
		{"unknown id", []string{"tasks", "add", board, "--item", `{"text":"x","depends_on":["item_00000000000000000000000"]}`}, 2, `"item_00000000000000000000000": board`},
		{"neither", []string{"tasks", "add", board, "--item", `{"text":"x","depends_on":["soon"]}`}, 2, `"soon" is neither`},
		{"existing id in add", []string{"tasks", "add", board, "--item", `{"text":"x","depends_on":["` + first + `"]}`}, 0, ""},
		{"position in update", []string{"tasks", "update", board, first, "--depends-on", "1"}, 2, "positions are valid only inside the create/add call that mints the items"},
		{"position in update via call", []string{"call", "workspace_tasks", `{"action":"update","board_id":"` + board + `","item_id":"` + first + `","depends_on":["1"]}`}, 2, "positions are valid only inside the create/add call"},
		{"positions via call", []string{"call", "workspace_tasks", `{"action":"create","title":"c","items":[{"text":"x","depends_on":["2"]},{"text":"y"}]}`}, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runAW(t, dir, nil, tc.args...)
			if r.Code != tc.code {
				t.Fatalf("exit %d, want %d: %s", r.Code, tc.code, r.Stdout)
			}
			if tc.want == "" {
				return
			}
			if got := r.field(t, ".error.code"); got != "INVALID_INPUT" {
				t.Fatalf("error.code %v", got)
			}
			if msg := r.field(t, ".error.message").(string); !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q does not contain %q", msg, tc.want)
			}
		})
	}
}
