package gate

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func prompt(t *testing.T, ws *workspace.Workspace, msg string) PromptResult {
	t.Helper()
	env, err := Prompt(context.Background(), ws, &PromptRequest{Message: msg})
	if err != nil {
		t.Fatalf("prompt %q: %v", msg, err)
	}
	return env.Data.(PromptResult)
}

func modeBlockOf(t *testing.T, msg string) string {
	t.Helper()
	i := strings.Index(msg, "<agentic-mode>")
	if i < 0 || !strings.HasSuffix(msg, "</agentic-mode>") {
		t.Fatalf("no <agentic-mode> block at the end of %q", msg)
	}
	return msg[i:]
}

func TestPromptPassThrough(t *testing.T) {
	ws := testWS(t, Manual)
	stageCommand(t, ws, "pending one")
	for _, msg := range []string{"/compact", "/compress keep the ids", "  /usage\n", "/COMPACT"} {
		if got := prompt(t, ws, msg); got.Message != msg || !got.PassThrough {
			t.Errorf("%q was changed: %q", msg, got.Message)
		}
	}
	ws = testWS(t, Auto)
	if got := prompt(t, ws, "hello"); got.Message != "hello" {
		t.Errorf("Auto mode changed a plain message: %q", got.Message)
	}
}

func TestPromptManualBlock(t *testing.T) {
	ws := testWS(t, Manual)
	advance := fixedClock(t, base)
	if b := modeBlockOf(t, prompt(t, ws, "hi").Message); !strings.Contains(b, "Manual (0)") || !strings.Contains(b, "No approvals are pending") {
		t.Fatalf("empty Manual block: %q", b)
	}
	var ids []string
	for i := 0; i < 7; i++ {
		// Multi-byte titles well over 60 bytes.
		ids = append(ids, stageCommand(t, ws, fmt.Sprintf("op%d %s", i, strings.Repeat("é", 80))))
		advance(time.Minute)
	}
	res := prompt(t, ws, "please continue")
	if !strings.HasPrefix(res.Message, "please continue\n\n<agentic-mode>") {
		t.Fatalf("the message must come first: %q", res.Message)
	}
	block := modeBlockOf(t, res.Message)
	if !strings.Contains(block, "newest first") || !strings.Contains(block, "7 pending") {
		t.Fatalf("block not labelled: %q", block)
	}
	var listed []string
	for _, line := range strings.Split(block, "\n") {
		var n int
		if _, err := fmt.Sscanf(line, "%d.", &n); err != nil {
			continue
		}
		listed = append(listed, line)
		title := line[strings.Index(line, "): ")+3:]
		if len(title) > ModeTitleBytes {
			t.Errorf("title not clipped to %d bytes: %d bytes", ModeTitleBytes, len(title))
		}
		if !strings.HasSuffix(title, "…") || !strings.Contains(line, "(command)") {
			t.Errorf("line %q", line)
		}
	}
	if len(listed) != MaxModeApprovals {
		t.Fatalf("%d approvals listed, want %d: %q", len(listed), MaxModeApprovals, block)
	}
	for i := 0; i < MaxModeApprovals; i++ {
		if !strings.Contains(listed[i], ids[6-i]) {
			t.Fatalf("line %d is %q, want %s (newest first)", i, listed[i], ids[6-i])
		}
	}
	if !strings.Contains(block, "and 2 more") {
		t.Fatalf("the rest is not counted: %q", block)
	}
}

func TestPromptPlanBlock(t *testing.T) {
	ws := testWS(t, Plan)
	advance := fixedClock(t, base)
	if b := modeBlockOf(t, prompt(t, ws, "go").Message); !strings.Contains(b, "Plan (1)") || !strings.Contains(b, "No plan is pending or approved") {
		t.Fatalf("no plan: %q", b)
	}
	env, _ := Propose(context.Background(), ws, minimalPlan())
	id := env.Data.(PlanView).PlanID
	advance(90 * time.Minute)
	b := modeBlockOf(t, prompt(t, ws, "go").Message)
	if !strings.Contains(b, "Pending plan "+id) || !strings.Contains(b, "proposed 1h30m ago") || !strings.Contains(b, "Fix it") {
		t.Fatalf("pending plan: %q", b)
	}
	res := prompt(t, ws, "/accept "+id+" go ahead")
	if res.Decision == nil || res.Decision.Status != Approved || res.Command != "accept" {
		t.Fatalf("decision: %+v", res)
	}
	if !strings.HasPrefix(res.Message, "<agentic-approval>\nThe user accepted plan "+id) || !strings.Contains(res.Message, "Note from the user: go ahead") ||
		!strings.Contains(res.Message, `workspace_plan {"action":"complete","plan_id":"`+id+`"}`) {
		t.Fatalf("approval block: %q", res.Message)
	}
	advance(10 * time.Minute)
	b = modeBlockOf(t, prompt(t, ws, "go").Message)
	if !strings.Contains(b, "Approved plan "+id) || !strings.Contains(b, "proposed 1h40m ago, approved 10m ago") {
		t.Fatalf("approved plan: %q", b)
	}
}

func TestPromptDecisions(t *testing.T) {
	ws := testWS(t, Manual)
	advance := fixedClock(t, base)
	a := stageCommand(t, ws, "first")
	advance(time.Second)
	b := stageCommand(t, ws, "second")
	advance(time.Second)

	res := prompt(t, ws, "/deny "+a+" use a dry run")
	if !strings.Contains(res.Message, "The user denied "+a) || !strings.Contains(res.Message, "Reason: use a dry run") ||
		!strings.Contains(res.Message, "Never re-issue the denied operation unchanged") {
		t.Fatalf("deny block: %q", res.Message)
	}
	if strings.Contains(res.Message, "Resume now") {
		t.Fatalf("a deny has no resume call: %q", res.Message)
	}
	res = prompt(t, ws, "/accept looks good")
	if res.Decision.ID != b || res.Decision.Note != "looks good" {
		t.Fatalf("bare accept with a note: %+v", res.Decision)
	}
	if !strings.Contains(res.Message, `Resume now with exactly this call: workspace_command {"action":"run","args":["second"],"executable":"echo"}`) {
		t.Fatalf("accept block: %q", res.Message)
	}
	if blk := modeBlockOf(t, res.Message); !strings.Contains(blk, "No approvals are pending") {
		t.Fatalf("the mode block must reflect the decision: %q", blk)
	}
	for _, c := range []struct {
		msg  string
		code envelope.Code
	}{{"/accept", envelope.NotFound}, {"/deny " + a, envelope.TransactionState}, {"/accept approval_zzz", envelope.NotFound}} {
		if _, err := Prompt(context.Background(), ws, &PromptRequest{Message: c.msg}); envelope.CodeOf(err) != c.code {
			t.Errorf("%q: %v, want %s", c.msg, err, c.code)
		}
	}
	stageCommand(t, ws, "third")
	ws.Caller = workspace.Caller{}
	if _, err := Prompt(context.Background(), ws, &PromptRequest{Message: "/accept"}); envelope.CodeOf(err) != envelope.HumanRequired {
		t.Fatalf("no token: %v", err)
	}
	// Not a command: /acceptance, or /accept later in the message.
	for _, msg := range []string{"/acceptance test", "please /accept it"} {
		if res := prompt(t, ws, msg); res.Decision != nil || !strings.HasPrefix(res.Message, msg) {
			t.Errorf("%q was treated as a decision", msg)
		}
	}
}
