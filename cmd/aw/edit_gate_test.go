package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// manualWorkspace is a Manual-mode workspace and the environment of a
// harness holding the approver token (a 0600 file outside the workspace).
func manualWorkspace(t *testing.T, extra string) (dir string, human []string) {
	t.Helper()
	dir = t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 0`+extra+`}`), 0o644)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "aw"), 0o700)
	if err := os.WriteFile(filepath.Join(home, "aw", "approver.token"), []byte("tok-edit\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, []string{"XDG_CONFIG_HOME=" + home, "AW_APPROVER_TOKEN=tok-edit"}
}

// TestEditApprovalBinding walks the approval rules for edits: the
// approval is bound to the operations and the files' contents, consumed by
// the commit, and rollback needs its own.
func TestEditApprovalBinding(t *testing.T) {
	dir, human := manualWorkspace(t, "")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	op := `{"type":"replace","path":"a.txt","search":"one","replacement":"two"}`

	staged := runAW(t, dir, nil, "edit", "apply", "--op", op)
	if staged.Code != 3 {
		t.Fatalf("apply in Manual mode: exit %d: %s", staged.Code, staged.Stdout)
	}
	first := staged.field(t, ".data.approval.id").(string)
	tx := staged.field(t, ".data.approval.resume.arguments.transaction_id").(string)
	if got, want := staged.field(t, ".data.approval.title"), "Commit "+tx+": modify a.txt (+1 \u22121)"; got != want {
		t.Errorf("the title must say what the commit does: %q, want %q", got, want)
	}
	if got, want := staged.field(t, ".data.approval.resume.command"), "aw edit commit "+tx; got != want {
		t.Errorf("the resume must carry the command line: %q, want %q", got, want)
	}
	if s := staged.field(t, ".summary").(string); !strings.Contains(s, "`aw edit commit "+tx+"`") || !strings.Contains(s, `"transaction_id":"`+tx+`"`) {
		t.Errorf("the staged summary must give the resume as a tool call and as a command line: %s", s)
	}
	if !strings.Contains(staged.field(t, ".summary").(string), first) || !strings.Contains(staged.field(t, ".summary").(string), tx) {
		t.Fatalf("the staged summary must name the approval and the resume call: %s", staged.field(t, ".summary"))
	}

	if r := runAWEnv(t, dir, nil, human, "approval", "accept", first); r.Code != 0 {
		t.Fatalf("accept: %s", r.Stdout)
	}
	// A touched file changed on disk: the same apply no longer matches the
	// approval; it is staged again and the first approval stays approved.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\nmore\n"), 0o644)
	again := runAW(t, dir, nil, "edit", "apply", "--op", op)
	if again.Code != 3 || again.field(t, ".data.approval.id") == first {
		t.Fatalf("apply after the file changed: exit %d, approval %v (first %s)", again.Code, again.field(t, ".data.approval.id"), first)
	}
	list := runAW(t, dir, nil, "approval", "show", first)
	if list.field(t, ".data.approval.status") != "approved" {
		t.Fatalf("the first approval is %v, want still approved", list.field(t, ".data.approval.status"))
	}
	// Committing the first transaction is stale now.
	if r := runAW(t, dir, nil, "edit", "commit", tx); r.field(t, ".error.code") != "EDIT_CONFLICT" {
		t.Fatalf("commit of a stale transaction: %s", r.Stdout)
	}

	// Put the file back: the approved transaction commits, once.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	if r := runAW(t, dir, nil, "edit", "commit", tx); r.Code != 0 {
		t.Fatalf("commit with the approval: %s", r.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "two\n" {
		t.Fatalf("a.txt = %q", b)
	}
	if s := runAW(t, dir, nil, "approval", "show", first); s.field(t, ".data.approval.status") != "consumed" {
		t.Fatalf("approval after the commit: %v, want consumed", s.field(t, ".data.approval.status"))
	}
	// Re-commit is a no-op: exit 0, nothing staged.
	if r := runAW(t, dir, nil, "edit", "commit", tx); r.Code != 0 || r.field(t, ".data.noOp") != true {
		t.Fatalf("re-commit: %s", r.Stdout)
	}
	// Rollback has its own approval: approving the commit never authorised it.
	rb := runAW(t, dir, nil, "edit", "rollback", tx)
	if rb.Code != 3 || rb.field(t, ".data.approval.title") != "Roll back "+tx+": restore a.txt" {
		t.Fatalf("rollback in Manual mode: %s", rb.Stdout)
	}
	if r := runAWEnv(t, dir, nil, human, "approval", "accept", rb.field(t, ".data.approval.id").(string)); r.Code != 0 {
		t.Fatalf("accept rollback: %s", r.Stdout)
	}
	if r := runAW(t, dir, nil, "edit", "rollback", tx); r.Code != 0 {
		t.Fatalf("rollback: %s", r.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\n" {
		t.Fatalf("after rollback a.txt = %q", b)
	}
	if r := runAW(t, dir, nil, "edit", "rollback", tx); r.Code != 0 || r.field(t, ".data.noOp") != true {
		t.Fatalf("second rollback must be a no-op: %s", r.Stdout)
	}

	// Denied: the identical operation is refused with the approval's id.
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("x\n"), 0o644)
	opB := `{"type":"replace","path":"b.txt","search":"x","replacement":"y"}`
	st := runAW(t, dir, nil, "edit", "apply", "--op", opB)
	id := st.field(t, ".data.approval.id").(string)
	if r := runAWEnv(t, dir, nil, human, "approval", "deny", id, "not now"); r.Code != 0 {
		t.Fatalf("deny: %s", r.Stdout)
	}
	denied := runAW(t, dir, nil, "edit", "apply", "--op", opB)
	if denied.Code != 1 || denied.field(t, ".error.code") != "APPROVAL_DENIED" || denied.field(t, ".error.details.approvalId") != id {
		t.Fatalf("apply after a denial: %s", denied.Stdout)
	}
}

// TestEditRecoveryListing: after a sequence of calls, inspect changes lists
// the transactions (a mkdir-only one with its directory count), pending
// approvals and plans, with ids in facts.
func TestEditRecoveryListing(t *testing.T) {
	dir, _ := manualWorkspace(t, "")
	runAW(t, dir, nil, "edit", "preview", "--op", `{"type":"mkdir","path":"only/dirs"}`)
	st := runAW(t, dir, nil, "edit", "apply", "--op", `{"type":"create","path":"n.txt","content":"x"}`)
	approval := st.field(t, ".data.approval.id").(string)
	plan := t.TempDir() + "/plan.json"
	os.WriteFile(plan, []byte(`{"title":"t","objective":"o","steps":["s"]}`), 0o644)
	runAW(t, dir, nil, "plan", "propose", "--input", plan)

	ch := runAW(t, dir, nil, "inspect", "changes")
	txs := ch.field(t, ".data.transactions").([]any)
	if len(txs) != 2 {
		t.Fatalf("%d transactions listed, want 2: %s", len(txs), ch.Stdout)
	}
	var mkdirOnly map[string]any
	for _, tx := range txs {
		if m := tx.(map[string]any); m["directoryCount"] == 1.0 {
			mkdirOnly = m
		}
	}
	if mkdirOnly == nil || mkdirOnly["fileCount"] != 0.0 || mkdirOnly["directories"].([]any)[0] != "only/dirs" {
		t.Fatalf("the mkdir-only transaction is not reported with its directory: %v", txs)
	}
	if ch.field(t, ".data.approvals.0.id") != approval || ch.field(t, ".data.plans.0.planPath") == "" {
		t.Fatalf("approvals or plans missing: %s", ch.Stdout)
	}
	facts := strings.Join(toStrings(ch.field(t, ".retention.facts").([]any)), "\n")
	if !strings.Contains(facts, approval) {
		t.Fatalf("the approval id is not in the facts: %s", facts)
	}
}

func toStrings(v []any) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i], _ = x.(string)
	}
	return out
}

// TestStagedResumeCommandLine: a staged call's resume is also a command
// line, and running that line in a shell after the approval is the call:
// the short form for edit commit, `aw call` for an action without one.
func TestStagedResumeCommandLine(t *testing.T) {
	dir, human := manualWorkspace(t, "")
	staged := runAW(t, dir, nil, "vcs", "init", "--branch", "it's")
	if staged.Code != 3 {
		t.Fatalf("vcs init in Manual mode: exit %d %s", staged.Code, staged.Stdout)
	}
	line := staged.field(t, ".data.approval.resume.command").(string)
	if line != `aw vcs init --branch 'it'\''s'` || !strings.Contains(staged.field(t, ".summary").(string), "`"+line+"`") {
		t.Fatalf("resume command line %q (summary %s)", line, staged.field(t, ".summary"))
	}
	if r := runAWEnv(t, dir, nil, human, "approval", "accept", staged.field(t, ".data.approval.id").(string)); r.Code != 0 {
		t.Fatalf("accept: %s", r.Stdout)
	}
	sh := exec.Command("sh", "-c", line)
	sh.Dir = dir
	sh.Env = append(os.Environ(), "PATH="+filepath.Dir(awBin)+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_CONFIG_HOME="+filepath.Join(dir, ".none"), "AW_ROOT=")
	out, err := sh.Output()
	var env map[string]any
	if json.Unmarshal(out, &env); err != nil || env["ok"] != true {
		t.Fatalf("running the resume line %q: %v %s", line, err, out)
	}
	head, _ := os.ReadFile(filepath.Join(dir, ".git", "HEAD"))
	if !strings.Contains(string(head), "refs/heads/it's") {
		t.Errorf("the resumed init did not use the branch: %q", head)
	}
}
