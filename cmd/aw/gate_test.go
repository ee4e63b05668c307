package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/workspace"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// gateWS makes a workspace in the given permission mode.
func gateWS(t *testing.T, mode int) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(fmt.Sprintf(`{"permissionMode": %d}`, mode)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// approver writes a private approver token outside the workspace and
// returns the environment of a harness holding it.
func approver(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "aw"), 0o700)
	if err := os.WriteFile(filepath.Join(home, "aw", "approver.token"), []byte("tok-gate-test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"XDG_CONFIG_HOME=" + home, "AW_APPROVER_TOKEN=tok-gate-test"}
}

// stage puts a pending approval in dir through the gate itself (Manual mode).
func stage(t *testing.T, dir, kind, title, review string) string {
	t.Helper()
	ws, err := workspace.Open(workspace.Options{Root: dir, Tier: workspace.TierExec})
	if err != nil {
		t.Fatal(err)
	}
	d, err := gate.Check(ws, gate.Operation{
		Kind: kind, Title: title, Hash: gate.Hash([]string{kind, title}), Review: review,
		Resume: gate.Resume{Tool: "workspace_command", Arguments: map[string]any{"action": "run", "executable": "echo", "args": []string{title}}},
	})
	if err != nil || d.Staged == nil {
		t.Fatalf("staging %q: %v", title, err)
	}
	return d.Staged.Approval.ID
}

func state(t *testing.T, dir string) map[string]gate.Record {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "approvals", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s gate.State
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("state.json is not valid JSON: %v", err)
	}
	out := map[string]gate.Record{}
	for _, r := range s.Records {
		if _, dup := out[r.ID]; dup {
			t.Fatalf("record %s appears twice", r.ID)
		}
		out[r.ID] = r
	}
	return out
}

func expect(t *testing.T, r Result, code int, errCode string) {
	t.Helper()
	if r.Code != code {
		t.Fatalf("exit %d, want %d: %s", r.Code, code, r.Stdout)
	}
	if errCode != "" && r.field(t, ".error.code") != errCode {
		t.Fatalf("error %v, want %s: %s", r.field(t, ".error.code"), errCode, r.Stdout)
	}
}

func TestApprovalVerbs(t *testing.T) {
	dir := gateWS(t, 0)
	tok := approver(t)
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, stage(t, dir, "command", fmt.Sprintf("run echo %d", i), fmt.Sprintf("echo %d", i)))
		time.Sleep(2 * time.Millisecond)
	}
	r := runAW(t, dir, nil, "approval", "list")
	expect(t, r, 0, "")
	for i := 0; i < 3; i++ {
		if got := r.field(t, fmt.Sprintf(".data.approvals.%d.id", i)); got != ids[2-i] {
			t.Fatalf("list entry %d is %v, want %s (newest first)", i, got, ids[2-i])
		}
	}

	// Without a terminal or the token: refused, nothing decided.
	expect(t, runAW(t, dir, nil, "approval", "accept"), 1, "HUMAN_REQUIRED")
	expect(t, runAW(t, dir, nil, "approval", "deny", ids[0], "no"), 1, "HUMAN_REQUIRED")
	expect(t, runAWEnv(t, dir, nil, []string{tok[0], "AW_APPROVER_TOKEN=wrong"}, "approval", "accept"), 1, "HUMAN_REQUIRED")
	if st := state(t, dir); st[ids[2]].Status != gate.Pending || st[ids[0]].Status != gate.Pending {
		t.Fatal("a refused verb decided something")
	}

	// A bare accept takes the newest and warns about the others.
	r = runAWEnv(t, dir, nil, tok, "approval", "accept", "fine", "by", "me")
	expect(t, r, 0, "")
	summary := r.field(t, ".summary").(string)
	if r.field(t, ".data.id") != ids[2] || r.field(t, ".data.note") != "fine by me" {
		t.Fatalf("bare accept: %s", r.Stdout)
	}
	if !strings.Contains(summary, "Warning: 2 other record(s) are still pending") || !strings.Contains(summary, `workspace_command {"action":"run","args":["run echo 2"],"executable":"echo"}`) {
		t.Fatalf("summary: %s", summary)
	}
	if facts := fmt.Sprint(r.field(t, ".retention.facts")); !strings.Contains(facts, "approval "+ids[2]+" approved") || !strings.Contains(facts, ids[1]) {
		t.Fatalf("facts: %s", facts)
	}

	r = runAWEnv(t, dir, nil, tok, "approval", "deny", ids[0], "use", "a", "dry", "run")
	expect(t, r, 0, "")
	if r.field(t, ".data.status") != "denied" || r.field(t, ".data.reason") != "use a dry run" || !strings.Contains(r.field(t, ".summary").(string), "never re-issue it unchanged") {
		t.Fatalf("deny: %s", r.Stdout)
	}
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "accept", ids[0]), 1, "TRANSACTION_STATE")
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "deny", ids[2]), 1, "TRANSACTION_STATE")
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "accept", "approval_00000000000000000000000"), 1, "NOT_FOUND")
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "accept", ids[1]), 0, "")
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "accept"), 1, "NOT_FOUND")

	r = runAW(t, dir, nil, "approval", "list")
	if r.field(t, ".data.total") != float64(2) {
		t.Fatalf("default list shows pending and approved: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "approval", "list", "--all")
	if r.field(t, ".data.total") != float64(3) || r.field(t, ".data.approvals.2.status") != "denied" {
		t.Fatalf("list --all: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "approval", "show", ids[0])
	expect(t, r, 0, "")
	if r.field(t, ".data.approval.note") != "use a dry run" || r.field(t, ".data.review") != "echo 0" {
		t.Fatalf("show: %s", r.Stdout)
	}
	expect(t, runAW(t, dir, nil, "approval", "show", "approval_nope"), 1, "NOT_FOUND")
}

// ptyRun runs aw under a real pseudo-terminal, answers the y/N question
// with answer, and returns everything the terminal showed.
func ptyRun(t *testing.T, dir string, env []string, answer string, args ...string) string {
	t.Helper()
	return ptyRunTo(t, dir, env, answer, nil, args...)
}

// ptyRunTo is ptyRun with stdout going to out instead of the terminal, as
// when a human pipes `aw approval accept > log`.
func ptyRunTo(t *testing.T, dir string, env []string, answer string, out io.Writer, args ...string) string {
	t.Helper()
	return ptyDialog(t, dir, env, out, []ptyStep{{"[y/N]", answer}}, args...)
}

// ptyStep waits until the terminal has shown want (the nth time for the
// nth step naming it) and then types send and a newline.
type ptyStep struct{ want, send string }

// ptyDialog runs aw under a real pseudo-terminal through steps and returns
// everything the terminal showed.
func ptyDialog(t *testing.T, dir string, env []string, out io.Writer, steps []ptyStep, args ...string) string {
	t.Helper()
	cmd := exec.Command(awBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AW_ROOT=", "AW_APPROVER_TOKEN=")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout = out
	tty, err := pty.Start(cmd)
	if err != nil {
		testenv.NoPty(t, err)
	}
	defer tty.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				close(done)
				return
			}
		}
	}()
	shown := func() string { mu.Lock(); defer mu.Unlock(); return screen.String() }
	seen := map[string]int{}
	for _, s := range steps {
		seen[s.want]++
		deadline := time.Now().Add(20 * time.Second)
		for strings.Count(shown(), s.want) < seen[s.want] {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("the terminal did not show %q (time %d): %q (stdout %v)", s.want, seen[s.want], shown(), out)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := tty.Write([]byte(s.send + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Wait()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return strings.ReplaceAll(shown(), "\r", "")
}

func envelopeIn(t *testing.T, text string) map[string]any {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, `{"protocol"`); i >= 0 {
			var env map[string]any
			if err := json.Unmarshal([]byte(line[i:]), &env); err != nil {
				t.Fatalf("envelope line: %v: %q", err, line)
			}
			return env
		}
	}
	t.Fatalf("no envelope in %q", text)
	return nil
}

func TestApprovalTerminalConfirm(t *testing.T) {
	dir := gateWS(t, 0)
	diff := ".agentic/transactions/tx_pty/changes.diff"
	os.MkdirAll(filepath.Join(dir, filepath.Dir(diff)), 0o755)
	os.WriteFile(filepath.Join(dir, diff), []byte("--- a/main.go\n+++ b/main.go\n-println(1)\n+println(2)\n"), 0o644)
	id := stage(t, dir, "transaction", "Commit tx_pty", diff)
	noToken := []string{"XDG_CONFIG_HOME=" + t.TempDir()}

	// N (and anything but y) decides nothing.
	shown := ptyRun(t, dir, noToken, "N", "approval", "accept", id, "-o", "json")
	for _, want := range []string{"Commit tx_pty", "transaction", "+println(2)", "Accept " + id + "? [y/N]"} {
		if !strings.Contains(shown, want) {
			t.Fatalf("the human was not shown %q: %q", want, shown)
		}
	}
	env := envelopeIn(t, shown)
	if env["ok"] != true || env["data"].(map[string]any)["decided"] != false {
		t.Fatalf("answering N: %v", env)
	}
	if st := state(t, dir); st[id].Status != gate.Pending {
		t.Fatalf("answering N decided %s", st[id].Status)
	}

	// y approves, on the terminal, without any token.
	shown = ptyRun(t, dir, noToken, "y", "approval", "accept", id, "-o", "json")
	env = envelopeIn(t, shown)
	data := env["data"].(map[string]any)
	if env["ok"] != true || data["decided"] != true || data["status"] != "approved" {
		t.Fatalf("answering y: %v", env)
	}
	if st := state(t, dir); st[id].Status != gate.Approved {
		t.Fatalf("after y the record is %s", st[id].Status)
	}

	// stdout piped to a file: the question is still asked on the
	// controlling terminal, and the file holds only the envelope.
	id3 := stage(t, dir, "command", "run make", "make release")
	var piped bytes.Buffer
	shown = ptyRunTo(t, dir, noToken, "y", &piped, "approval", "accept", id3)
	if !strings.Contains(shown, "Accept "+id3+"? [y/N]") {
		t.Fatalf("no question on the terminal with stdout piped: %q", shown)
	}
	if err := json.Unmarshal(piped.Bytes(), &env); err != nil || env["data"].(map[string]any)["status"] != "approved" {
		t.Fatalf("piped stdout is not the one envelope of an accept: %v %q", err, piped.String())
	}

	// deny on the terminal too.
	id2 := stage(t, dir, "command", "run rm", "rm -rf build")
	shown = ptyRun(t, dir, noToken, "yes", "approval", "deny", id2, "not", "now", "-o", "json")
	if !strings.Contains(shown, "rm -rf build") || !strings.Contains(shown, "Deny "+id2+"? [y/N]") {
		t.Fatalf("deny question: %q", shown)
	}
	if st := state(t, dir); st[id2].Status != gate.Denied || st[id2].Note != "not now" {
		t.Fatalf("terminal deny: %+v", st[id2])
	}
}

func TestPlanBinary(t *testing.T) {
	dir := gateWS(t, 1)
	tok := approver(t)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	plan := write("plan.json", `{"title":"Fix parser","objective":"parse","steps":["read",{"text":"edit","kind":"edit"}],"files":[{"path":"src/../a.go","change":"modify"}]}`)
	r := runAW(t, dir, nil, "plan", "propose", "--input", plan)
	expect(t, r, 0, "")
	first := r.field(t, ".data.planId").(string)
	if r.field(t, ".data.revision") != float64(1) || r.field(t, ".data.supersedes") != nil || r.field(t, ".data.plan.files.0.path") != "a.go" {
		t.Fatalf("propose: %s", r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, ".agentic", "plans", first, "plan.md")); err != nil {
		t.Fatal(err)
	}
	r = runAW(t, dir, nil, "plan", "propose", "--input", plan)
	second := r.field(t, ".data.planId").(string)
	if r.field(t, ".data.revision") != float64(2) || r.field(t, ".data.supersedes") != first {
		t.Fatalf("second propose: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "plan", "complete")
	expect(t, r, 1, "TRANSACTION_STATE")
	if msg := r.field(t, ".error.message").(string); !strings.Contains(msg, second) || !strings.Contains(msg, "stop and wait") {
		t.Fatalf("complete on an unaccepted plan: %s", msg)
	}
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "accept", first), 1, "TRANSACTION_STATE") // superseded
	r = runAWEnv(t, dir, nil, tok, "approval", "accept")
	expect(t, r, 0, "")
	if r.field(t, ".data.id") != second || !strings.Contains(r.field(t, ".summary").(string), "aw plan complete") {
		t.Fatalf("accepting the plan: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "plan", "current")
	if r.field(t, ".data.status") != "approved" || r.field(t, ".data.planId") != second {
		t.Fatalf("current: %s", r.Stdout)
	}
	expect(t, runAW(t, dir, nil, "plan", "complete", "--summary", "done"), 0, "")
	r = runAW(t, dir, nil, "plan", "current")
	if r.field(t, ".data.status") != "none" {
		t.Fatalf("current after complete: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "plan", "list", "--limit", "1")
	if r.field(t, ".data.total") != float64(2) || r.field(t, ".data.plans.0.status") != "completed" {
		t.Fatalf("list: %s", r.Stdout)
	}

	// Text fields hold at most 2,000 characters: INVALID_INPUT naming the field, exit 2.
	long := write("long.json", fmt.Sprintf(`{"title":"t","objective":"o","steps":["ok","%s"]}`, strings.Repeat("x", 2001)))
	r = runAW(t, dir, nil, "plan", "propose", "--input", long)
	expect(t, r, 2, "INVALID_INPUT")
	if r.field(t, ".error.details.field") != "steps[1].text" {
		t.Fatalf("field: %s", r.Stdout)
	}

	// Auto mode: the plan tool is not registered.
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 2}`), 0o644)
	r = runAW(t, dir, nil, "plan", "current")
	expect(t, r, 1, "TOOL_DISABLED")
	// The repair names a value the setting accepts, and it works.
	msg := r.field(t, ".error.message").(string)
	if !strings.Contains(msg, "`aw config set permissionMode 1`") {
		t.Fatalf("the hint does not name a valid value: %s", msg)
	}
	expect(t, runAWEnv(t, dir, nil, tok, "config", "set", "permissionMode", "1"), 0, "")
	expect(t, runAW(t, dir, nil, "plan", "current"), 0, "")
}

// TestGateConcurrent runs 20 aw processes at once, half proposing plans and
// half deciding approvals: state.json stays valid and nothing is lost.
func TestGateConcurrent(t *testing.T) {
	dir := gateWS(t, 0)
	tok := approver(t)
	var ids []string
	for i := 0; i < 10; i++ {
		ids = append(ids, stage(t, dir, "command", fmt.Sprintf("op %d", i), ""))
	}
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"title":"p","objective":"o","steps":["s"]}`), 0o644)
	var wg sync.WaitGroup
	results := make([]Result, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if i%2 == 0 {
				results[i] = runAW(t, dir, nil, "plan", "propose", "--input", plan)
			} else if i%4 == 1 {
				results[i] = runAWEnv(t, dir, nil, tok, "approval", "accept", ids[i/2])
			} else {
				results[i] = runAWEnv(t, dir, nil, tok, "approval", "deny", ids[i/2], "no")
			}
		}(i)
	}
	wg.Wait()
	var plans []string
	for i, r := range results {
		if r.Code != 0 {
			t.Fatalf("process %d: exit %d: %s", i, r.Code, r.Stdout)
		}
		if i%2 == 0 {
			plans = append(plans, r.field(t, ".data.planId").(string))
		}
	}
	st := state(t, dir)
	if len(st) != 20 {
		t.Fatalf("%d records, want 20", len(st))
	}
	for i, id := range ids {
		want := gate.Approved
		if (2*i+1)%4 == 3 {
			want = gate.Denied
		}
		if st[id].Status != want {
			t.Errorf("%s is %s, want %s", id, st[id].Status, want)
		}
	}
	pending, revisions := 0, map[int]bool{}
	for _, id := range plans {
		r, ok := st[id]
		if !ok {
			t.Fatalf("plan %s lost", id)
		}
		if r.Status == gate.Pending {
			pending++
		} else if r.Status != gate.Superseded {
			t.Errorf("plan %s is %s", id, r.Status)
		}
		revisions[r.Revision] = true
		if _, err := os.Stat(filepath.Join(dir, ".agentic", "plans", id, "plan.md")); err != nil {
			t.Errorf("plan %s has no plan.md", id)
		}
	}
	if pending != 1 || len(revisions) != 10 {
		t.Fatalf("%d pending plans (want 1), revisions %v (want 1..10, each once)", pending, revisions)
	}
}

func TestPromptBinary(t *testing.T) {
	dir := gateWS(t, 0)
	tok := approver(t)
	var ids []string
	for i := 0; i < 7; i++ {
		ids = append(ids, stage(t, dir, "command", fmt.Sprintf("op%d %s", i, strings.Repeat("ü", 50)), ""))
		time.Sleep(2 * time.Millisecond)
	}
	text := func(env []string, msg string) (string, int) {
		cmd := exec.Command(awBin, "prompt", "--text")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "AW_ROOT=", "AW_APPROVER_TOKEN=", "XDG_CONFIG_HOME="+t.TempDir())
		cmd.Env = append(cmd.Env, env...)
		cmd.Stdin = strings.NewReader(msg)
		out, err := cmd.Output()
		code := 0
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		}
		return string(out), code
	}
	out, code := text(nil, "what next?")
	if code != 0 || !strings.HasPrefix(out, "what next?\n\n<agentic-mode>\nPermission mode: Manual (0).") {
		t.Fatalf("plain message: %d %q", code, out)
	}
	lines := 0
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 2 && line[0] >= '1' && line[0] <= '9' && line[1] == '.' {
			if want := ids[6-lines]; !strings.Contains(line, want) {
				t.Fatalf("line %d %q, want %s", lines, line, want)
			}
			if title := line[strings.Index(line, "): ")+3:]; len(title) > 60 {
				t.Fatalf("title of %d bytes: %q", len(title), title)
			}
			lines++
		}
	}
	if lines != 5 {
		t.Fatalf("%d approvals listed, want 5: %q", lines, out)
	}
	for _, msg := range []string{"/compact", "/compress\nplease", "/usage"} {
		if out, code := text(nil, msg); code != 0 || out != msg {
			t.Fatalf("%q came back as %q", msg, out)
		}
	}
	// Deciding needs the token; with --text a failure prints nothing on stdout.
	if out, code := text(nil, "/accept "+ids[3]); code != 1 || out != "" {
		t.Fatalf("/accept without the token: %d %q", code, out)
	}
	r := runAW(t, dir, []byte("/accept"), "prompt")
	expect(t, r, 1, "HUMAN_REQUIRED")
	out, code = text(tok, "/accept "+ids[3]+" ship it")
	if code != 0 || !strings.HasPrefix(out, "<agentic-approval>\nThe user accepted "+ids[3]) || !strings.Contains(out, "Resume now with exactly this call: workspace_command") {
		t.Fatalf("/accept with the token: %d %q", code, out)
	}
	r = runAWEnv(t, dir, []byte("/deny "+ids[4]+" too risky"), tok, "prompt")
	expect(t, r, 0, "")
	msg := r.field(t, ".data.message").(string)
	if r.field(t, ".data.decision.status") != "denied" || !strings.Contains(msg, "Reason: too risky") || !strings.Contains(msg, "Never re-issue the denied operation unchanged") {
		t.Fatalf("/deny: %s", r.Stdout)
	}
	if st := state(t, dir); st[ids[3]].Status != gate.Approved || st[ids[4]].Status != gate.Denied || st[ids[3]].Note != "ship it" {
		t.Fatalf("prompt decisions not recorded: %+v %+v", st[ids[3]], st[ids[4]])
	}
}

// TestApproverTokenNeverReadable: the agent picks --root, so it could
// point it at the config directory and read the approver token through
// inspect, then approve its own actions. No tool reads, lists, searches or
// writes a file named approver.token, whatever the root.
func TestApproverTokenNeverReadable(t *testing.T) {
	const secret = "tok-7f3a-never-shown"
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "aw"), 0o700)
	if err := os.WriteFile(filepath.Join(home, "aw", "approver.token"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := gateWS(t, 2)
	for _, args := range [][]string{
		{"--root", home, "inspect", "read", "aw/approver.token"},
		{"--root", filepath.Join(home, "aw"), "inspect", "read", "approver.token"},
		{"--root", home, "inspect", "read", "aw/../aw/approver.token"},
		{"--root", home, "inspect", "search", "--fixed", secret},
		{"--root", home, "inspect", "find", "**/*token*"},
		{"--root", home, "inspect", "list", "aw"},
		{"--root", filepath.Join(home, "aw"), "edit", "apply", "--op", `{"type":"copy","from":"approver.token","to":"t.txt"}`},
		{"--root", filepath.Join(home, "aw"), "inspect", "stat", "approver.token"},
	} {
		r := runAW(t, dir, nil, args...)
		out := strings.ReplaceAll(string(r.Stdout), `\"`+secret+`\"`, "") // the search echoes its pattern
		out = strings.ReplaceAll(out, `"pattern":"`+secret+`"`, "")
		if strings.Contains(out, secret) || strings.Contains(string(r.Stdout), "approver.token\"") && r.Env["ok"] == true {
			t.Errorf("aw %s exposed the approver token: %s", strings.Join(args, " "), r.Stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "aw", "t.txt")); err == nil {
		t.Errorf("the token was copied")
	}
}

// TestGateApprovalRunsOnce: an approval lets its operation run once. Twelve
// identical resumes started together used to all find it approved (it was
// consumed only after the spawn) and ran the command several times.
func TestGateApprovalRunsOnce(t *testing.T) {
	dir := gateWS(t, 0)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode":0,"commands":{"allow":["echo"],"interpreter":"sh"}}`), 0o644)
	tok := approver(t)
	const line = "echo x >> count.txt"
	r := runAW(t, dir, nil, "command", "run", "--line", line)
	id, _ := r.field(t, ".data.approval.id").(string)
	if r := runAWEnv(t, dir, nil, tok, "approval", "accept", id); r.Code != 0 {
		t.Fatalf("accept: %s", r.Stdout)
	}
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runAW(t, dir, nil, "command", "run", "--line", line)
		}()
	}
	wg.Wait()
	got, _ := os.ReadFile(filepath.Join(dir, "count.txt"))
	if n := strings.Count(string(got), "x"); n != 1 {
		t.Fatalf("one approval ran the command %d times", n)
	}
	if st := state(t, dir)[id].Status; st != gate.Consumed {
		t.Errorf("the approval is %s, want consumed", st)
	}
}

// TestDenialBindsInEveryMode: a command the human denied, with a reason,
// stays refused with that reason in Manual, in Plan mode under an approved
// plan, and in Auto; a changed command is not blocked. A denied plan is
// reported by plan current with when and why.
func TestDenialBindsInEveryMode(t *testing.T) {
	dir := gateWS(t, 0)
	tok := approver(t)
	setMode := func(mode int) {
		cfg := fmt.Sprintf(`{"permissionMode": %d, "commands": {"allow": ["echo"]}}`, mode)
		if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setMode(0)
	expect(t, runAW(t, dir, nil, "command", "run", "--", "echo", "deploy"), 3, "")
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "deny", "", "not on a Friday"), 0, "")
	denied := func(mode string) {
		t.Helper()
		r := runAW(t, dir, nil, "command", "run", "--", "echo", "deploy")
		expect(t, r, 1, "APPROVAL_DENIED")
		if r.field(t, ".error.details.userReason") != "not on a Friday" || !strings.Contains(r.field(t, ".error.message").(string), "not on a Friday") {
			t.Fatalf("%s: the denial does not carry the reason: %s", mode, r.Stdout)
		}
	}
	denied("manual")

	setMode(1)
	plan := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(plan, []byte(`{"title":"Release","objective":"ship","steps":["deploy"]}`), 0o644)
	expect(t, runAW(t, dir, nil, "plan", "propose", "--input", plan), 0, "")
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "accept"), 0, "")
	denied("plan mode with an approved plan")
	expect(t, runAW(t, dir, nil, "command", "run", "--", "echo", "deploy", "later"), 0, "")

	setMode(2)
	denied("auto")
	expect(t, runAW(t, dir, nil, "command", "run", "--", "echo", "other"), 0, "")

	// A denied plan: plan current says so, when, and why.
	setMode(1)
	expect(t, runAW(t, dir, nil, "plan", "complete", "--summary", "done"), 0, "")
	expect(t, runAW(t, dir, nil, "plan", "propose", "--input", plan), 0, "")
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "deny", "", "too risky"), 0, "")
	r := runAW(t, dir, nil, "plan", "current")
	if r.field(t, ".data.status") != "denied" || r.field(t, ".data.reason") != "too risky" || r.field(t, ".data.decidedAt") == nil {
		t.Fatalf("plan current after a denied plan: %s", r.Stdout)
	}
}

// TestWarningsReachTheEnvelope: a user config aw ignores (here: planted
// inside the workspace) is reported in retention.facts and data.warnings
// of the call's envelope, not only on a terminal's stderr; a pending
// approval stays exit 3 with its warning.
func TestWarningsReachTheEnvelope(t *testing.T) {
	dir := gateWS(t, 0)
	planted := filepath.Join(dir, "cfg")
	os.MkdirAll(filepath.Join(planted, "aw"), 0o700)
	os.WriteFile(filepath.Join(planted, "aw", "config.json"), []byte(`{"permissionMode": 2}`), 0o600)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644)
	env := []string{"XDG_CONFIG_HOME=" + planted}
	for _, args := range [][]string{
		{"inspect", "read", "a.txt"},
		{"edit", "apply", "--op", `{"type":"create","path":"b.txt","content":"y"}`},
		{"inspect", "read", "missing.txt"},
	} {
		r := runAWEnv(t, dir, nil, env, args...)
		ws, ok := r.Env["data"].(map[string]any)["warnings"].([]any)
		if !ok || len(ws) != 1 || !strings.Contains(ws[0].(string), "ignoring user config") {
			t.Fatalf("aw %v: data.warnings %v: %s", args, r.Env["data"], r.Stdout)
		}
		facts := fmt.Sprint(r.field(t, ".retention.facts"))
		if !strings.Contains(facts, "warning: ignoring user config") {
			t.Fatalf("aw %v: facts %s", args, facts)
		}
		if args[0] == "edit" && (r.Code != 3 || r.field(t, ".data.status") != "pending_approval") {
			t.Fatalf("the planted config's Auto mode was used, or the staged call lost exit 3: %d %s", r.Code, r.Stdout)
		}
	}
}

// TestCommandArgvAndLineOneApproval: the same command staged as an argv and
// as a line (argv mode) is one operation: one approval, and accepting it
// lets either form run once.
func TestCommandArgvAndLineOneApproval(t *testing.T) {
	dir := gateWS(t, 0)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 0, "commands": {"allow": ["echo"]}}`), 0o644)
	tok := approver(t)
	argv := runAW(t, dir, nil, "command", "run", "--", "echo", "hi")
	expect(t, argv, 3, "")
	line := runAW(t, dir, nil, "command", "run", "--line", "echo  'hi'")
	expect(t, line, 3, "")
	if a, b := argv.field(t, ".data.approval.id"), line.field(t, ".data.approval.id"); a != b {
		t.Fatalf("argv staged %v, the same command as a line staged %v", a, b)
	}
	other := runAW(t, dir, nil, "command", "run", "--line", "echo hi there")
	if other.field(t, ".data.approval.id") == argv.field(t, ".data.approval.id") {
		t.Fatalf("a different command matched the approval")
	}
	expect(t, runAWEnv(t, dir, nil, tok, "approval", "accept", argv.field(t, ".data.approval.id").(string)), 0, "")
	r := runAW(t, dir, nil, "command", "run", "--line", "echo hi")
	expect(t, r, 0, "")
	if r.field(t, ".data.stdoutTail") != "hi\n" {
		t.Fatalf("the approved command did not run: %s", r.Stdout)
	}
	expect(t, runAW(t, dir, nil, "command", "run", "--", "echo", "hi"), 3, "") // used once
}
