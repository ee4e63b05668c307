package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// testWS opens a fresh workspace in mode, as a caller on a terminal who
// answers yes to every confirmation.
func testWS(t *testing.T, mode int) *workspace.Workspace {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".agentic"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`{"permissionMode": %d}`, mode)
	if err := os.WriteFile(filepath.Join(root, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(workspace.Options{Root: root, Tier: workspace.TierExec, Caller: workspace.Caller{Terminal: true, Confirm: yes}})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func yes(string) bool { return true }

// fixedClock replaces Clock for the test; advance moves it.
func fixedClock(t *testing.T, start time.Time) (advance func(time.Duration)) {
	t.Helper()
	now := start
	old := Clock
	Clock = func() time.Time { return now }
	t.Cleanup(func() { Clock = old })
	return func(d time.Duration) { now = now.Add(d) }
}

var base = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// stageCommand stages a command approval through Check (Manual mode).
func stageCommand(t *testing.T, ws *workspace.Workspace, title string) string {
	t.Helper()
	d, err := Check(ws, Operation{
		Kind: "command", Title: title, Hash: Hash([]string{"command", title}),
		Resume: Resume{Tool: "workspace_command", Arguments: map[string]any{"action": "run", "executable": "echo", "args": []string{title}}},
		Review: "echo " + title,
	})
	if err != nil || d.Staged == nil {
		t.Fatalf("staging %q: %v %+v", title, err, d)
	}
	return d.Staged.Approval.ID
}

func writeState(t *testing.T, ws *workspace.Workspace, recs []Record) {
	t.Helper()
	if err := ws.Store.WriteJSON(StatePath(ws), &State{Records: recs}); err != nil {
		t.Fatal(err)
	}
}

func readState(t *testing.T, ws *workspace.Workspace) State {
	t.Helper()
	raw, err := os.ReadFile(StatePath(ws))
	if err != nil {
		t.Fatal(err)
	}
	var s State
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("state.json does not parse: %v", err)
	}
	return s
}

func TestExpiry(t *testing.T) {
	cases := []struct {
		status string
		age    time.Duration
		want   string
	}{
		{Pending, 23*time.Hour + 59*time.Minute, Pending},
		{Pending, 24 * time.Hour, Pending}, // expires after, not at, 24 h
		{Pending, 24*time.Hour + time.Second, Expired},
		{Approved, 25 * time.Hour, Expired},
		{Denied, 25 * time.Hour, Expired},
		{Denied, time.Hour, Denied},
		{Consumed, 48 * time.Hour, Consumed},
		{Completed, 48 * time.Hour, Completed},
		{Superseded, 48 * time.Hour, Superseded},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s+%s", c.status, c.age), func(t *testing.T) {
			ws := testWS(t, Manual)
			advance := fixedClock(t, base)
			writeState(t, ws, []Record{{ID: "approval_x", Kind: "command", Status: c.status, Title: "t", CreatedAt: base, ExpiresAt: base.Add(Lifetime)}})
			advance(c.age)
			s, err := Load(ws, Clock())
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Records[0].Status; got != c.want {
				t.Fatalf("Load: status %s, want %s", got, c.want)
			}
			// Every update materialises expiry in the file.
			if err := update(ws, func(*State, time.Time) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if got := readState(t, ws).Records[0].Status; got != c.want {
				t.Fatalf("state.json: status %s, want %s", got, c.want)
			}
		})
	}
}

func TestExpiredPlanLocksPlanMode(t *testing.T) {
	ws := testWS(t, Plan)
	advance := fixedClock(t, base)
	env, err := Propose(context.Background(), ws, &ProposeRequest{Title: "p", Objective: "o", Steps: []PlanStep{{Text: "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := env.Data.(PlanView).PlanID
	if _, err := Decide(ws, "accept", id, "", Approved, true); err != nil {
		t.Fatal(err)
	}
	op := Operation{Kind: "command", Title: "x", Hash: "h", Resume: Resume{Tool: "workspace_command"}}
	if d, err := Check(ws, op); err != nil || !d.Run {
		t.Fatalf("approved plan: %v %+v", err, d)
	}
	advance(Lifetime + time.Minute)
	if _, err := Check(ws, op); envelope.CodeOf(err) != envelope.ApprovalRequired {
		t.Fatalf("an approved plan must unlock Plan mode for a day only: %v", err)
	}
}

func TestPrune(t *testing.T) {
	type group struct {
		status string
		n      int
	}
	cases := []struct {
		name   string
		groups []group // in file order, oldest first
		// wantDropped counts dropped records per status.
		wantDropped map[string]int
	}{
		{"terminal first even when newer", []group{{Pending, 295}, {Consumed, 10}, {Completed, 10}}, map[string]int{Consumed: 10, Completed: 5}},
		{"oldest terminal only", []group{{Expired, 20}, {Pending, 290}}, map[string]int{Expired: 10}},
		{"then pending", []group{{Approved, 10}, {Superseded, 5}, {Pending, 300}}, map[string]int{Superseded: 5, Pending: 10}},
		{"pending before approved", []group{{Pending, 305}, {Approved, 5}}, map[string]int{Pending: 10}},
		{"denials outlive pending and approved", []group{{Denied, 5}, {Approved, 10}, {Pending, 300}}, map[string]int{Pending: 15}},
		{"approved before denied", []group{{Denied, 295}, {Approved, 10}}, map[string]int{Approved: 5}},
		{"under the cap", []group{{Pending, 10}, {Denied, 290}}, map[string]int{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s State
			i := 0
			for _, g := range c.groups {
				for k := 0; k < g.n; k++ {
					s.Records = append(s.Records, Record{ID: fmt.Sprintf("approval_%04d", i), Status: g.status, CreatedAt: base.Add(time.Duration(i) * time.Second)})
					i++
				}
			}
			before := map[string]int{}
			for _, r := range s.Records {
				before[r.Status]++
			}
			s.prune()
			if len(s.Records) > MaxRecords {
				t.Fatalf("%d records kept, want at most %d", len(s.Records), MaxRecords)
			}
			after := map[string]int{}
			for _, r := range s.Records {
				after[r.Status]++
			}
			for st, n := range before {
				if got := n - after[st]; got != c.wantDropped[st] {
					t.Errorf("dropped %d %s records, want %d", got, st, c.wantDropped[st])
				}
			}
			// Within a status the oldest go first: survivors are the newest.
			for j := 1; j < len(s.Records); j++ {
				if s.Records[j].CreatedAt.Before(s.Records[j-1].CreatedAt) {
					t.Fatalf("prune reordered records")
				}
			}
		})
	}
}

func TestPruneThroughUpdate(t *testing.T) {
	ws := testWS(t, Manual)
	fixedClock(t, base)
	var recs []Record
	for i := 0; i < MaxRecords; i++ {
		recs = append(recs, Record{ID: fmt.Sprintf("approval_old%03d", i), Kind: "command", Status: Consumed, CreatedAt: base.Add(-time.Hour), ExpiresAt: base.Add(time.Hour)})
	}
	writeState(t, ws, recs)
	id := stageCommand(t, ws, "new one")
	s := readState(t, ws)
	if len(s.Records) != MaxRecords || s.find(id) == nil || s.find("approval_old000") != nil {
		t.Fatalf("after staging over the cap: %d records, new kept %v", len(s.Records), s.find(id) != nil)
	}
}

func TestBareAcceptPicksNewest(t *testing.T) {
	cases := []struct {
		name      string
		planLast  bool
		wantKind  string
		wantOther int
	}{
		{"newest approval", false, "command", 3},
		{"newest is a plan", true, "plan", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := testWS(t, Manual)
			advance := fixedClock(t, base)
			var ids []string
			if !c.planLast {
				env, err := Propose(context.Background(), ws, &ProposeRequest{Title: "p", Objective: "o", Steps: []PlanStep{{Text: "s"}}})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, env.Data.(PlanView).PlanID)
				advance(time.Second)
			}
			for i := 0; i < 3; i++ {
				ids = append(ids, stageCommand(t, ws, fmt.Sprintf("op %d", i)))
				advance(time.Second)
			}
			if c.planLast {
				env, err := Propose(context.Background(), ws, &ProposeRequest{Title: "p", Objective: "o", Steps: []PlanStep{{Text: "s"}}})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, env.Data.(PlanView).PlanID)
			}
			newest := ids[len(ids)-1]
			res, err := Decide(ws, "accept", "", "ok", Approved, true)
			if err != nil {
				t.Fatal(err)
			}
			if res.ID != newest || res.Kind != c.wantKind || !res.Bare || len(res.OtherPending) != c.wantOther {
				t.Fatalf("bare accept decided %+v, want %s", res, newest)
			}
			if res.OtherPending[0] != ids[len(ids)-2] {
				t.Fatalf("other pending not newest first: %v (ids %v)", res.OtherPending, ids)
			}
			env := decisionEnvelope(ws, res)
			if !strings.Contains(env.Summary, "bare accept or deny decided only the newest") {
				t.Fatalf("summary does not warn: %s", env.Summary)
			}
			if c.wantKind == "command" && !strings.Contains(env.Summary, `workspace_command {"action":"run"`) {
				t.Fatalf("summary lacks the resume call: %s", env.Summary)
			}
			// Records created at the same instant: the later one is newer.
			advance(0)
			a := stageCommand(t, ws, "same instant a")
			b := stageCommand(t, ws, "same instant b")
			s, _ := Load(ws, Clock())
			if p := PendingNewest(s); p[0].ID != b || p[1].ID != a {
				t.Fatalf("same-instant order: %s %s, want %s %s", p[0].ID, p[1].ID, b, a)
			}
		})
	}
}

func TestDecideErrors(t *testing.T) {
	ws := testWS(t, Manual)
	fixedClock(t, base)
	if _, err := Decide(ws, "accept", "", "", Approved, true); envelope.CodeOf(err) != envelope.NotFound {
		t.Fatalf("nothing pending: %v", err)
	}
	id := stageCommand(t, ws, "one")
	if _, err := Decide(ws, "accept", "approval_nope", "", Approved, true); envelope.CodeOf(err) != envelope.NotFound {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := Decide(ws, "deny", id, "no", Denied, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Decide(ws, "accept", id, "", Approved, true); envelope.CodeOf(err) != envelope.TransactionState {
		t.Fatalf("deciding a denied record: %v", err)
	}
	if _, err := Decide(ws, "accept", "", "", Approved, true); envelope.CodeOf(err) != envelope.NotFound {
		t.Fatalf("nothing pending after the deny: %v", err)
	}
	// A denial blocks the identical operation.
	if _, err := Check(ws, Operation{Kind: "command", Title: "one", Hash: Hash([]string{"command", "one"}), Resume: Resume{Tool: "workspace_command"}}); envelope.CodeOf(err) != envelope.ApprovalDenied {
		t.Fatalf("re-issuing a denied op: %v", err)
	}
	// Not a human: no terminal, no token.
	stageCommand(t, ws, "two")
	ws.Caller = workspace.Caller{}
	if _, err := Decide(ws, "accept", "", "", Approved, true); envelope.CodeOf(err) != envelope.HumanRequired {
		t.Fatalf("no human: %v", err)
	}
	ws.Caller = workspace.Caller{Terminal: true}
	if _, err := Decide(ws, "accept", "", "", Approved, true); envelope.CodeOf(err) != envelope.HumanRequired {
		t.Fatalf("a terminal front end that cannot confirm must not decide: %v", err)
	}
	ws.Caller.Confirm = yes
	if _, err := Decide(ws, "accept", "", strings.Repeat("n", MaxTextChars+1), Approved, true); envelope.CodeOf(err) != envelope.InvalidInput {
		t.Fatalf("long note: %v", err)
	}
}

func TestConfirmOnTerminal(t *testing.T) {
	ws := testWS(t, Manual)
	fixedClock(t, base)
	diff := ".agentic/transactions/tx_test/changes.diff"
	if err := os.MkdirAll(filepath.Join(ws.Root, filepath.Dir(diff)), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws.Root, diff), []byte("--- a/x\n+++ b/x\n-old line\n+new line\n"), 0o644)
	d, err := Check(ws, Operation{Kind: "transaction", Title: "Commit tx_test", Hash: "h1", Review: diff,
		Resume: Resume{Tool: "workspace_edit", Arguments: map[string]any{"action": "commit", "transaction_id": "tx_test"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := d.Staged.Approval.ID
	var asked []string
	answer := false
	ws.Caller.Confirm = func(p string) bool { asked = append(asked, p); return answer }
	res, err := Decide(ws, "accept", id, "", Approved, true)
	if err != nil || res.Decided {
		t.Fatalf("answer no: %v %+v", err, res)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "+new line") || !strings.Contains(asked[0], "Commit tx_test") || !strings.Contains(asked[0], "transaction") {
		t.Fatalf("the human was not shown the diff: %q", asked)
	}
	if s, _ := Load(ws, Clock()); s.find(id).Status != Pending {
		t.Fatal("answering no decided something")
	}
	answer = true
	if res, err := Decide(ws, "accept", id, "", Approved, true); err != nil || !res.Decided || res.Status != Approved {
		t.Fatalf("answer yes: %v %+v", err, res)
	}
	// The token path and the prompt preprocessor never ask.
	id2 := stageCommand(t, ws, "two")
	asked = nil
	if _, err := Decide(ws, "accept", id2, "", Approved, false); err != nil || len(asked) != 0 {
		t.Fatalf("confirm=false asked anyway: %v %q", err, asked)
	}
}

func TestShowReviewBounded(t *testing.T) {
	ws := testWS(t, Manual)
	ws.Settings.MaxToolResultChars = 1000
	fixedClock(t, base)
	diff := ".agentic/transactions/tx_big/changes.diff"
	os.MkdirAll(filepath.Join(ws.Root, filepath.Dir(diff)), 0o755)
	os.WriteFile(filepath.Join(ws.Root, diff), []byte(strings.Repeat("é", 3000)), 0o644)
	secret := filepath.Join(ws.Root, "secret.txt")
	os.WriteFile(secret, []byte("do not show"), 0o644)
	writeState(t, ws, []Record{
		{ID: "approval_big", Kind: "transaction", Status: Pending, Title: "big", Review: diff, CreatedAt: base, ExpiresAt: base.Add(Lifetime)},
		{ID: "approval_esc", Kind: "transaction", Status: Pending, Title: "esc", Review: ".agentic/../secret.txt", CreatedAt: base, ExpiresAt: base.Add(Lifetime)},
		{ID: "approval_argv", Kind: "command", Status: Pending, Title: "argv", Review: "go test ./...", CreatedAt: base, ExpiresAt: base.Add(Lifetime)},
	})
	env, err := ShowApproval(context.Background(), ws, &ApprovalShowRequest{ID: "approval_big"})
	if err != nil {
		t.Fatal(err)
	}
	show := env.Data.(ApprovalShow)
	if !show.ReviewTruncated || len([]rune(show.Review)) != 1000 || show.ReviewPath != diff {
		t.Fatalf("review not bounded: %d runes truncated=%v", len([]rune(show.Review)), show.ReviewTruncated)
	}
	env, _ = ShowApproval(context.Background(), ws, &ApprovalShowRequest{ID: "approval_esc"})
	if show := env.Data.(ApprovalShow); strings.Contains(show.Review, "do not show") {
		t.Fatal("a review path leaving .agentic/ was read")
	}
	env, _ = ShowApproval(context.Background(), ws, &ApprovalShowRequest{ID: "approval_argv"})
	if show := env.Data.(ApprovalShow); show.Review != "go test ./..." {
		t.Fatalf("argv review: %q", show.Review)
	}
	if _, err := ShowApproval(context.Background(), ws, &ApprovalShowRequest{ID: "approval_none"}); envelope.CodeOf(err) != envelope.NotFound {
		t.Fatalf("unknown: %v", err)
	}
}
