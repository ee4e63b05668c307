package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// These tests pin approval rules that mutation testing (scripts/mutants)
// found undefended: what a human is shown, and how notes are bounded.

// addRecord stores r as it is (the review file tests need a Review path).
func addRecord(t *testing.T, ws *workspace.Workspace, r Record) {
	t.Helper()
	if err := update(ws, func(s *State, now time.Time) error {
		if r.CreatedAt.IsZero() {
			r.CreatedAt = now
		}
		r.ExpiresAt = r.CreatedAt.Add(Lifetime)
		s.Records = append(s.Records, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func show(t *testing.T, ws *workspace.Workspace, id string) envelope.Envelope {
	t.Helper()
	env, err := ShowApproval(context.Background(), ws, &ApprovalShowRequest{ID: id})
	if err != nil {
		t.Fatalf("show %s: %v", id, err)
	}
	return env
}

// Records created at the same instant list the later one first.
func TestByNewestTieBreak(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Manual)
	addRecord(t, ws, Record{ID: "approval_first", Kind: "command", Status: Pending, CreatedAt: base})
	addRecord(t, ws, Record{ID: "approval_second", Kind: "command", Status: Pending, CreatedAt: base})
	s, _ := Load(ws, base)
	got := PendingNewest(s)
	if len(got) != 2 || got[0].ID != "approval_second" || got[1].ID != "approval_first" {
		t.Fatalf("PendingNewest = %+v", got)
	}
}

// show names an approval or a plan as such, tells how to decide a pending
// one, and carries the resume call as a fact.
func TestShowApprovalSummary(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Manual)
	id := stageCommand(t, ws, "hello")
	env := show(t, ws, id)
	if !strings.HasPrefix(env.Summary, "Approval "+id+" (command) is pending") || !strings.Contains(env.Summary, "/accept "+id) {
		t.Errorf("pending approval summary: %s", env.Summary)
	}
	facts := strings.Join(env.Retention.Facts, "\n")
	if !strings.Contains(facts, "approval "+id+" pending") || !strings.Contains(facts, "resume: ") {
		t.Errorf("facts: %s", facts)
	}
	decide(t, ws, id, Denied)
	if env := show(t, ws, id); strings.Contains(env.Summary, "/accept") {
		t.Errorf("a decided approval still tells how to decide it: %s", env.Summary)
	}

	p, err := Propose(context.Background(), ws, minimalPlan())
	if err != nil {
		t.Fatal(err)
	}
	plan := p.Data.(PlanView)
	env = show(t, ws, plan.PlanID)
	if !strings.HasPrefix(env.Summary, "Plan "+plan.PlanID+" is pending") {
		t.Errorf("plan summary: %s", env.Summary)
	}
	if facts := strings.Join(env.Retention.Facts, "\n"); !strings.Contains(facts, "plan "+plan.PlanID) || strings.Contains(facts, "resume: ") {
		t.Errorf("plan facts: %s", facts)
	}
	// A plan's review is its markdown file.
	data := env.Data.(ApprovalShow)
	if data.ReviewPath != plan.PlanPath || !strings.Contains(data.Review, minimalPlan().Title) {
		t.Errorf("plan review from %q: %q", data.ReviewPath, data.Review)
	}
}

// The review text is cut at maxToolResultChars characters (not bytes), a
// text of exactly that length is whole, a missing file says so, and a
// review file that is a symlink out of .agentic/ is never read.
func TestShowApprovalReviewText(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Manual)
	ws.Settings.MaxToolResultChars = 10
	dir := filepath.Join(ws.Root, ".agentic", "review")
	os.MkdirAll(dir, 0o755)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("TOP-SECRET"), 0o644)
	os.Symlink(secret, filepath.Join(dir, "link.md"))
	files := map[string]string{
		"exact.md": strings.Repeat("é", 10),
		"long.md":  strings.Repeat("😀", 10) + "x",
	}
	for name, text := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	cases := []struct {
		file, review string
		truncated    bool
	}{
		{"exact.md", strings.Repeat("é", 10), false},
		{"long.md", strings.Repeat("😀", 10), true},
		{"missing.md", "(the review file .agentic/review/missing.md cannot be read", false},
		{"link.md", ".agentic/review/link.md", false},
	}
	for _, tc := range cases {
		id := "approval_" + strings.TrimSuffix(tc.file, ".md")
		addRecord(t, ws, Record{ID: id, Kind: "transaction", Status: Pending, Title: tc.file, Review: ".agentic/review/" + tc.file})
		data := show(t, ws, id).Data.(ApprovalShow)
		if !strings.HasPrefix(data.Review, tc.review) || data.ReviewTruncated != tc.truncated || strings.Contains(data.Review, "TOP-SECRET") {
			t.Errorf("%s: review %q truncated %v, want %q truncated %v", tc.file, data.Review, data.ReviewTruncated, tc.review, tc.truncated)
		}
		if tc.review == files[tc.file] && data.Review != tc.review {
			t.Errorf("%s: review %q, want it whole", tc.file, data.Review)
		}
	}
}

// A note or reason is bounded at MaxTextChars, and the refusal names which.
func TestDecideNoteBound(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Manual)
	id := stageCommand(t, ws, "bounded")
	for _, to := range []string{Approved, Denied} {
		_, err := Decide(ws, "test", id, strings.Repeat("n", MaxTextChars+1), to, false)
		want := map[string]string{Approved: "note", Denied: "reason"}[to]
		var e *envelope.Error
		if envelope.CodeOf(err) != envelope.InvalidInput || !strings.Contains(err.Error(), "the "+want+" is") {
			t.Fatalf("%s with a long note: %v", to, err)
		} else if e = err.(*envelope.Error); e.Details["field"] != want {
			t.Errorf("%s: field %v, want %s", to, e.Details["field"], want)
		}
	}
	if res, err := Decide(ws, "test", id, strings.Repeat("n", MaxTextChars), Approved, false); err != nil || res.Status != Approved {
		t.Fatalf("a note of exactly %d characters: %+v %v", MaxTextChars, res, err)
	}
}

// A terminal caller that declines the confirmation decides nothing; the
// result says whether the id was given or the newest record taken.
func TestDecideDeclined(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Manual)
	id := stageCommand(t, ws, "declined")
	ws.Caller.Confirm = func(string) bool { return false }
	for _, given := range []string{id, ""} {
		res, err := Decide(ws, "test", given, "", Approved, true)
		if err != nil || res.ID != id || res.Status != Pending || res.Decided || res.Bare != (given == "") {
			t.Errorf("declined (id %q): %+v %v", given, res, err)
		}
	}
	if s, _ := Load(ws, base); s.find(id).Status != Pending {
		t.Error("a declined confirmation decided the record")
	}
}

// The confirmation screen says what is decided: the verb, a destructive
// warning only when it is one, the resume call, and the review text
// between markers with the cut noted.
func TestConfirmText(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Manual)
	ws.Settings.MaxToolResultChars = 10
	os.MkdirAll(filepath.Join(ws.Root, ".agentic", "review"), 0o755)
	os.WriteFile(filepath.Join(ws.Root, ".agentic", "review", "r.md"), []byte("0123456789abc"), 0o644)
	r := Record{ID: "approval_x", Kind: "transaction", Title: "t", Destructive: true, Review: ".agentic/review/r.md",
		Resume: &Resume{Tool: "workspace_edit", Arguments: map[string]any{"action": "commit"}}}
	text := confirmText(ws, &r, Denied)
	for _, want := range []string{"Deny approval approval_x?\n", "destructive: yes", "resumes as:  workspace_edit", "--- .agentic/review/r.md ---\n0123456789\n", "cut at 10 characters", "Deny approval_x? [y/N] "} {
		if !strings.Contains(text, want) {
			t.Errorf("confirmation lacks %q:\n%s", want, text)
		}
	}
	r = Record{ID: "approval_y", Kind: "command", Title: "t", Review: "echo hi"}
	text = confirmText(ws, &r, Approved)
	for _, unwanted := range []string{"destructive", "resumes as", "cut at", "Deny"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("confirmation has %q:\n%s", unwanted, text)
		}
	}
	if !strings.Contains(text, "--- review ---\necho hi\n---\n") || !strings.HasPrefix(text, "Accept approval approval_y?") {
		t.Errorf("an argv review:\n%s", text)
	}
	r = Record{ID: "approval_z", Kind: "command", Title: "t"}
	if text := confirmText(ws, &r, Approved); strings.Contains(text, "---") {
		t.Errorf("no review, yet markers:\n%s", text)
	}
}

// A decision's envelope and summary: each kind and outcome, the resume
// call, the reason, and other pending records (a warning after a bare
// decision, at most five named).
func TestDecisionEnvelope(t *testing.T) {
	ws := testWS(t, Manual)
	facts := func(env envelope.Envelope) string { return strings.Join(env.Retention.Facts, "\n") }
	env := decisionEnvelope(ws, DecisionResult{ID: "approval_a", Kind: "command", Status: Pending, Title: "t"})
	if !strings.HasPrefix(env.Summary, "Nothing decided") || !strings.Contains(facts(env), "still pending") {
		t.Errorf("undecided: %s / %s", env.Summary, facts(env))
	}
	others := []string{"o1", "o2", "o3", "o4", "o5"}
	res := DecisionResult{ID: "approval_a", Kind: "command", Status: Approved, Title: "t", Decided: true, ResumeCall: "workspace_command {}", OtherPending: others}
	env = decisionEnvelope(ws, res)
	if !strings.Contains(facts(env), "resume with: workspace_command {}") || !strings.Contains(facts(env), "still pending: o1, o2, o3, o4, o5") || strings.Contains(facts(env), "more") {
		t.Errorf("approved: %s", facts(env))
	}
	if !strings.HasPrefix(env.Summary, "Approved approval_a (command): t. The agent resumes with exactly this call: workspace_command {}.") ||
		!strings.Contains(env.Summary, " 5 other record(s) are still pending") || strings.Contains(env.Summary, "Warning") {
		t.Errorf("approved summary: %s", env.Summary)
	}
	res.Bare, res.OtherPending = true, append(others, "o6")
	if s := decisionSummary(ws, res); !strings.Contains(s, "Warning: 6 other record(s)") || !strings.Contains(s, "o5, and 1 more") {
		t.Errorf("bare with six others: %s", s)
	}
	res = DecisionResult{ID: "approval_d", Kind: "command", Status: Denied, Title: "t", Decided: true, Reason: "too risky", ExpiresAt: "soon"}
	env = decisionEnvelope(ws, res)
	if !strings.Contains(env.Summary, "Denied approval_d (command): t. Reason: too risky.") || !strings.Contains(env.Summary, "APPROVAL_DENIED until soon") || !strings.Contains(facts(env), "deny reason: too risky") ||
		strings.Contains(facts(env), "still pending") || strings.Contains(env.Summary, "other record") {
		t.Errorf("denied: %s / %s", env.Summary, facts(env))
	}
	res.Reason, res.Bare = "", true
	if s := decisionSummary(ws, res); strings.Contains(s, "Reason") || strings.Contains(s, "Warning") {
		t.Errorf("denied without a reason: %s", s)
	}
	plan := DecisionResult{ID: "plan_p", Kind: "plan", Status: Denied, Title: "t", Decided: true, Reason: "no"}
	if s := decisionSummary(ws, plan); !strings.HasPrefix(s, "Denied plan plan_p: t. Reason: no. The agent must not run the plan") {
		t.Errorf("denied plan: %s", s)
	}
	plan.Reason = ""
	if s := decisionSummary(ws, plan); strings.Contains(s, "Reason") {
		t.Errorf("denied plan without a reason: %s", s)
	}
	plan.Status = Approved
	if s := decisionSummary(ws, plan); !strings.Contains(s, "Manual mode: the plan is a shared checklist") {
		t.Errorf("approved plan in Manual mode: %s", s)
	}
	ws.Settings.PermissionMode = Plan
	if s := decisionSummary(ws, plan); !strings.Contains(s, "Mutating calls now run until the agent calls workspace_plan") {
		t.Errorf("approved plan in Plan mode: %s", s)
	}
}

// RequireHuman: a caller off the terminal is a human only with the token
// of the token file; the refusals name the token file.
func TestRequireHumanToken(t *testing.T) {
	ws := testWS(t, Manual)
	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "aw"), 0o700)
	os.WriteFile(filepath.Join(cfg, "aw", "approver.token"), []byte("tok-right\n"), 0o600)
	ws.ConfigHome = cfg
	ws.Caller = workspace.Caller{ApproverToken: "tok-right"}
	if err := RequireHuman(ws, "approval accept"); err != nil {
		t.Fatalf("the right token: %v", err)
	}
	for tok, why := range map[string]string{"": "set AW_APPROVER_TOKEN", "tok-wrong": "does not match"} {
		ws.Caller.ApproverToken = tok
		err := RequireHuman(ws, "approval accept")
		if envelope.CodeOf(err) != envelope.HumanRequired || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), filepath.Join(cfg, "aw", "approver.token")) {
			t.Errorf("token %q: %v", tok, err)
		}
	}
	ws.ConfigHome, ws.Caller.ApproverToken = "", "tok-right"
	if err := RequireHuman(ws, "approval accept"); envelope.CodeOf(err) != envelope.HumanRequired || !strings.Contains(err.Error(), "no config directory") || !strings.Contains(err.Error(), "$XDG_CONFIG_HOME/aw/approver.token") {
		t.Errorf("no config directory: %v", err)
	}
}

// PendingApprovals leaves plans out; PendingNewest has both.
func TestPendingApprovalsLeaveOutPlans(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Manual)
	id := stageCommand(t, ws, "cmd")
	if _, err := Propose(context.Background(), ws, minimalPlan()); err != nil {
		t.Fatal(err)
	}
	s, _ := Load(ws, base)
	if got := s.PendingApprovals(); len(got) != 1 || got[0].ID != id {
		t.Errorf("PendingApprovals = %+v", got)
	}
	if got := PendingNewest(s); len(got) != 2 {
		t.Errorf("PendingNewest = %+v", got)
	}
}
