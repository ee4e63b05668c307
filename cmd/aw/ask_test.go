package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentic-workspace/aw/engine/agent/agenttest"
)

// startAW starts aw in the background; done returns its envelope once it
// exited.
func startAW(t *testing.T, dir string, env []string, args ...string) (done func() map[string]any) {
	t.Helper()
	raw := startAWRaw(t, dir, env, args...)
	return func() map[string]any {
		out := raw()
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("aw %v: %v: %s", args, err, out)
		}
		return m
	}
}

// startAWRaw is startAW returning the bytes aw printed.
func startAWRaw(t *testing.T, dir string, env []string, args ...string) (done func() []byte) {
	t.Helper()
	cmd := exec.Command(awBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"), "AW_ROOT=", "AW_APPROVER_TOKEN=")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return func() []byte {
		cmd.Wait()
		return out.Bytes()
	}
}

// askOperations: a question asked and answered, for the golden envelopes.
func askOperations(t testing.TB) map[string][]byte {
	tt := t.(*testing.T)
	dir := mcpWorkspace(tt, `{"permissionMode": 2}`)
	human := approver(tt)
	root, _ := filepath.EvalSymlinks(dir)
	done := startAWRaw(tt, dir, human[:1], "call", "ask", `{"action":"ask","question":"Keep the old API?","context":"v2 drops it","options":[{"label":"keep","description":"stay compatible"},{"label":"drop"}],"wait_seconds":30}`)
	id := pendingQuestion(tt, dir, human)
	ans := runAWEnv(tt, dir, nil, human, "call", "ask", fmt.Sprintf(`{"action":"answer","question_id":%q,"choices":["keep"]}`, id))
	return map[string][]byte{"ask.answer": normalize(ans.Stdout, root), "ask.ask": normalize(done(), root)}
}

// pendingQuestion waits for the one pending question and returns its id.
func pendingQuestion(t *testing.T, dir string, human []string) string {
	t.Helper()
	var id string
	eventually(t, 20*time.Second, "a question is pending", func() bool {
		r := runAWEnv(t, dir, nil, human, "answer")
		if qs, _ := r.field(t, ".data.questions").([]any); len(qs) == 1 {
			id = get(qs[0].(map[string]any), ".id").(string)
		}
		return id != ""
	})
	return id
}

func TestAskAndAnswer(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 1}`)
	// No terminal and no approver token: nobody could answer, so the
	// question is refused at once.
	began := time.Now()
	r := runAW(t, dir, nil, "ask", "Keep the old API?", "--option", "keep", "--option", "drop", "--wait", "30")
	if r.Code == 0 || r.field(t, ".error.code") != "HUMAN_REQUIRED" || r.field(t, ".error.details.reason") != "no-human-channel" || time.Since(began) > 5*time.Second {
		t.Fatalf("no human channel: %s", r.Stdout)
	}
	human := approver(t)
	asker := human[:1] // the token file exists; the asker does not hold the token

	done := startAW(t, dir, asker, "ask", "Keep the old API?", "--context", "v2 drops it", "--option", "keep:stay compatible", "--option", "drop", "--wait", "30")
	id := pendingQuestion(t, dir, human)
	for _, tc := range []struct {
		env  []string
		args []string
		code string
	}{
		{asker, []string{"answer", id, "keep"}, "HUMAN_REQUIRED"},
		{human, []string{"answer", id, "maybe"}, "INVALID_INPUT"},
		{human, []string{"answer", id, "keep", "drop"}, "INVALID_INPUT"},
		{human, []string{"answer", id, "keep", "--skip"}, "INVALID_INPUT"},
		{human, []string{"answer", "question_nope", "keep"}, "INVALID_INPUT"},
	} {
		if r := runAWEnv(t, dir, nil, tc.env, tc.args...); r.field(t, ".error.code") != tc.code {
			t.Errorf("%v: %s", tc.args, r.Stdout)
		}
	}
	if a := runAWEnv(t, dir, nil, human, "answer", id, "2"); a.Code != 0 || a.field(t, ".data.status") != "answered" {
		t.Fatalf("answer: %s", a.Stdout)
	}
	env := done()
	if env["ok"] != true || get(env, ".data.choices.0") != "drop" || !strings.Contains(env["summary"].(string), `chose "drop"`) {
		t.Errorf("asker after the answer: %v", env)
	}
	if r := runAWEnv(t, dir, nil, human, "answer", id, "keep"); r.field(t, ".error.code") != "TRANSACTION_STATE" {
		t.Errorf("second answer: %s", r.Stdout)
	}

	// A skip is success, with the instruction to go on.
	done = startAW(t, dir, asker, "ask", "Which port?", "--wait", "30")
	id = pendingQuestion(t, dir, human)
	if a := runAWEnv(t, dir, nil, human, "answer", id, "--skip"); a.Code != 0 {
		t.Fatalf("skip: %s", a.Stdout)
	}
	env = done()
	if env["ok"] != true || get(env, ".data.status") != "skipped" || !strings.Contains(env["summary"].(string), "stated assumption") {
		t.Errorf("asker after a skip: %v", env)
	}

	// A wait that runs out is an error with the same instruction, and the
	// question can no longer be answered.
	r = runAWEnv(t, dir, nil, asker, "ask", "Anyone there?", "--wait", "1")
	if r.Code == 0 || r.field(t, ".error.code") != "TIMEOUT" || !strings.Contains(r.field(t, ".error.message").(string), "stated assumption") {
		t.Fatalf("timeout: %s", r.Stdout)
	}
	late := r.field(t, ".error.details.questionId").(string)
	if a := runAWEnv(t, dir, nil, human, "answer", late, "yes"); a.field(t, ".error.code") != "TRANSACTION_STATE" {
		t.Errorf("answer after the timeout: %s", a.Stdout)
	}
	for _, args := range [][]string{{"ask"}, {"ask", "x", "--wait", "0"}, {"ask", "x", "--multi"}, {"ask", "x", "--option", "1"}} {
		if r := runAWEnv(t, dir, nil, asker, args...); r.field(t, ".error.code") != "INVALID_INPUT" {
			t.Errorf("%v: %s", args, r.Stdout)
		}
	}
}

// A run asks the human through its ask_user tool and goes on with the
// answer.
func TestAgentRunAsksTheHuman(t *testing.T) {
	model := agenttest.New(t,
		agenttest.Turn{Calls: []agenttest.Call{call("ask_user", M{"action": "ask", "question": "Which name?", "options": []any{M{"label": "alpha"}, M{"label": "beta"}}, "wait_seconds": 30})}},
		agenttest.Turn{Content: report, Expect: "The human chose"},
	)
	dir := agentWorkspace(t, model, 2, "")
	human := approver(t)
	done := startAW(t, dir, human[:1], "agent", "run", "Name the thing")
	id := pendingQuestion(t, dir, human)
	if a := runAWEnv(t, dir, nil, human, "answer", id, "beta"); a.Code != 0 {
		t.Fatalf("answer: %s", a.Stdout)
	}
	env := done()
	if get(env, ".data.status") != "completed" || get(env, ".data.toolCalls") != float64(1) {
		t.Errorf("run: %v", env)
	}
}

// aw ask on the human's terminal asks there: the card shows the question
// with its control characters escaped, a line that answers nothing is
// explained and asked again, and the answer typed ends the wait.
func TestAskOnTheTerminal(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 1}`)
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, ".userconfig-none")}
	var out bytes.Buffer
	screen := ptyDialog(t, dir, env, &out, []ptyStep{{"> ", "maybe"}, {"> ", "2"}},
		"ask", "Keep the old API?\x1b[2J", "--context", "v2 drops it", "--option", "keep:stay compatible", "--option", "drop", "--wait", "30")
	for _, want := range []string{"The agent asks (question_", `Keep the old API?\x1b[2J`, "v2 drops it", "1. keep — stay compatible", "2. drop", "--skip skips it", `"maybe" is not one of the options`} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal did not show %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "\x1b[2J") {
		t.Errorf("the question's escape sequence reached the terminal raw")
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || get(m, ".data.status") != "answered" || get(m, ".data.choices.0") != "drop" {
		t.Fatalf("the asker's envelope: %v %s", err, out.Bytes())
	}

	// Several choices by commas, free text, and a skip.
	for _, tc := range []struct {
		args   []string
		typed  string
		status string
		field  string
		want   any
	}{
		{[]string{"--option", "lint", "--option", "unit tests", "--option", "e2e", "--multi"}, "1, unit tests", "answered", ".data.choices.1", "unit tests"},
		{[]string{"--option", "the default", "--free-text"}, "port 9090 please", "answered", ".data.text", "port 9090 please"},
		{nil, "--skip", "skipped", ".data.status", "skipped"},
	} {
		out.Reset()
		ptyDialog(t, dir, env, &out, []ptyStep{{"> ", tc.typed}}, append([]string{"ask", "Which?", "--wait", "30"}, tc.args...)...)
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil || get(m, ".data.status") != tc.status || get(m, tc.field) != tc.want {
			t.Errorf("typed %q: %v %s", tc.typed, err, out.Bytes())
		}
	}
}

// /answer in aw prompt answers the newest pending question (or the one it
// names) for the human, and the model gets an <agentic-answer> block.
func TestPromptAnswer(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 1}`)
	human := approver(t)
	asker := human[:1]
	done := startAW(t, dir, asker, "ask", "Keep the old API?", "--option", "keep", "--option", "drop", "--wait", "30")
	id := pendingQuestion(t, dir, human)

	wantErr(t, runAWEnv(t, dir, []byte("/answer 2"), asker, "prompt"), "HUMAN_REQUIRED", 1)
	wantErr(t, runAWEnv(t, dir, []byte("/answer maybe"), human, "prompt"), "INVALID_INPUT", 2, "is not one of the options")
	r := runAWEnv(t, dir, []byte("/answer 2"), human, "prompt")
	if r.Code != 0 || r.field(t, ".data.command") != "answer" || r.field(t, ".data.answer.id") != id || r.field(t, ".data.answer.choices.0") != "drop" {
		t.Fatalf("/answer: %s", r.Stdout)
	}
	msg := str(t, r, ".data.message")
	for _, want := range []string{"<agentic-answer>", "The user answered question " + id, `chose "drop"`, "</agentic-answer>", "<agentic-mode>"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the rewritten message lacks %q: %s", want, msg)
		}
	}
	if env := done(); get(env, ".data.choices.0") != "drop" {
		t.Errorf("the asker after /answer: %v", env)
	}
	wantErr(t, runAWEnv(t, dir, []byte("/answer 1"), human, "prompt"), "NOT_FOUND", 1, "no question is pending")
	wantErr(t, runAWEnv(t, dir, []byte("/answer "+id+" 1"), human, "prompt"), "TRANSACTION_STATE", 1, "already answered")

	// Named, skipped; the other pending question is mentioned.
	first := startAW(t, dir, asker, "ask", "First?", "--wait", "30")
	a := pendingQuestion(t, dir, human)
	second := startAW(t, dir, asker, "ask", "Second?", "--wait", "30")
	var b string
	eventually(t, 20*time.Second, "two questions are pending", func() bool {
		qs, _ := runAWEnv(t, dir, nil, human, "answer").field(t, ".data.questions").([]any)
		if len(qs) == 2 {
			b = get(qs[1].(map[string]any), ".id").(string)
		}
		return b != ""
	})
	r = runAWEnv(t, dir, []byte("/answer "+a+" --skip"), human, "prompt")
	if r.field(t, ".data.answer.status") != "skipped" || !strings.Contains(str(t, r, ".data.message"), "Still pending: "+b) {
		t.Fatalf("/answer ID --skip: %s", r.Stdout)
	}
	if env := first(); get(env, ".data.status") != "skipped" {
		t.Errorf("the first asker: %v", env)
	}
	r = runAWEnv(t, dir, []byte("/answer use port 9090"), human, "prompt")
	if r.field(t, ".data.answer.id") != b || r.field(t, ".data.answer.text") != "use port 9090" {
		t.Fatalf("bare /answer with free text: %s", r.Stdout)
	}
	if env := second(); get(env, ".data.text") != "use port 9090" {
		t.Errorf("the second asker: %v", env)
	}
}

// An MCP client that supports elicitation is a human channel: a run
// started over MCP asks through its ask_user tool, the server offers the
// question as a form while the call waits, and the answer (or a decline,
// which skips) reaches the run. On a protocol that forbids requests during
// a call there is no such channel, and the question fails at once.
func TestMCPAsksQuestionsByElicitation(t *testing.T) {
	for _, tc := range []struct {
		protocol, action string
		expect           string
	}{
		{"2025-11-25", "accept", "The human chose"},
		{"2025-11-25", "decline", "The human skipped question"},
		{"", "accept", "HUMAN_REQUIRED"},
	} {
		t.Run(tc.protocol+"/"+tc.action, func(t *testing.T) {
			model := agenttest.New(t,
				agenttest.Turn{Calls: []agenttest.Call{call("ask_user", M{"action": "ask", "question": "Which name?\x1b[2J", "options": []any{M{"label": "alpha"}, M{"label": "beta"}}, "wait_seconds": 30})}},
				agenttest.Turn{Content: report, Expect: tc.expect},
			)
			dir := agentWorkspace(t, model, 2, "")
			var asked []*mcp.ElicitParams
			c := startMCP(t, dir, clientOpts{protocol: tc.protocol, elicit: func(p *mcp.ElicitParams) *mcp.ElicitResult {
				asked = append(asked, p)
				if tc.action == "decline" {
					return &mcp.ElicitResult{Action: "decline"}
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "beta"}}
			}})
			env := c.call(t, "workspace_agent", map[string]any{"action": "run", "objective": "Name the thing"})
			if get(env, ".data.status") != "completed" {
				t.Fatalf("run: %v", env)
			}
			if tc.protocol == "" {
				if len(asked) != 0 {
					t.Errorf("a form was shown on a protocol that forbids it: %v", asked)
				}
				return
			}
			if len(asked) != 1 || !strings.Contains(asked[0].Message, `Which name?\x1b[2J`) || strings.Contains(asked[0].Message, "\x1b") {
				t.Fatalf("the human was not shown the question (escaped): %+v", asked)
			}
			enum := fmt.Sprint(get(map[string]any(asked[0].RequestedSchema.(map[string]any)), ".properties.choice.enum"))
			if enum != "[alpha beta]" {
				t.Errorf("the form's choices: %v", enum)
			}
			recs, _ := filepath.Glob(filepath.Join(dir, ".agentic", "questions", "question_*.json"))
			raw, _ := os.ReadFile(recs[0])
			want := map[string]string{"accept": `"status": "answered"`, "decline": `"status": "skipped"`}[tc.action]
			if len(recs) != 1 || !strings.Contains(string(raw), want) || (tc.action == "accept" && !strings.Contains(string(raw), `"beta"`)) {
				t.Errorf("the question record: %s", raw)
			}
		})
	}
}

// A channel record left by a server that died counts for nothing: the
// question is refused at once and the record is removed.
func TestAskStaleChannelIsNoHuman(t *testing.T) {
	dir := mcpWorkspace(t, `{"permissionMode": 2}`)
	ch := filepath.Join(dir, ".agentic", "questions", "channels")
	os.MkdirAll(ch, 0o755)
	stale := filepath.Join(ch, "mcp-999999.json")
	os.WriteFile(stale, []byte(`{"kind":"mcp","pid":999999,"start":1,"since":"2026-01-01T00:00:00Z"}`), 0o644)
	wantErr(t, runAW(t, dir, nil, "ask", "Anyone?", "--wait", "30"), "HUMAN_REQUIRED", 1, "no human can answer")
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale channel record is still there: %v", err)
	}
}
