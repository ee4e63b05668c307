package gate

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func op(title string) Operation {
	return Operation{
		Kind: "transaction", Title: title, Hash: Hash([]string{"op", title}),
		Resume: Resume{Tool: "workspace_edit", Arguments: map[string]any{"action": "commit", "transaction_id": title}},
	}
}

func decide(t *testing.T, ws *workspace.Workspace, id, to string) {
	t.Helper()
	if _, err := Decide(ws, "test", id, "", to, false); err != nil {
		t.Fatalf("deciding %s: %v", id, err)
	}
}

// TestCheckModes is the gate's mode table: Auto runs, Plan needs an approved
// plan, Manual stages; destructive is refused first in every mode.
func TestCheckModes(t *testing.T) {
	for _, mode := range []int{Manual, Plan, Auto} {
		ws := testWS(t, mode)
		destructive := op("destroy")
		destructive.Destructive, destructive.Refusal = true, "delete of existing a.txt"
		if _, err := Check(ws, destructive); envelope.CodeOf(err) != envelope.ProtectedPath {
			t.Errorf("mode %d: destructive without allowDestructiveEdits: %v, want PROTECTED_PATH", mode, err)
		}
		d, err := Check(ws, op("plain"))
		switch mode {
		case Auto:
			if err != nil || !d.Run {
				t.Errorf("Auto: %+v %v, want run", d, err)
			}
		case Plan:
			if envelope.CodeOf(err) != envelope.ApprovalRequired {
				t.Errorf("Plan without a plan: %v, want APPROVAL_REQUIRED", err)
			}
		case Manual:
			if err != nil || d.Staged == nil || d.Run {
				t.Errorf("Manual: %+v %v, want staged", d, err)
			}
		}
	}
	// Nothing was staged for the refused destructive call.
	ws := testWS(t, Manual)
	destructive := op("destroy")
	destructive.Destructive = true
	Check(ws, destructive)
	if s, _ := Load(ws, time.Now()); len(s.Records) != 0 {
		t.Fatalf("a destructive refusal staged %d records", len(s.Records))
	}
}

func TestCheckPlanMode(t *testing.T) {
	advance := fixedClock(t, base)
	ws := testWS(t, Plan)
	env, err := Propose(context.Background(), ws, minimalPlan())
	if err != nil {
		t.Fatal(err)
	}
	p := env.Data.(PlanView).PlanID
	if _, err := Check(ws, op("x")); envelope.CodeOf(err) != envelope.ApprovalRequired {
		t.Fatalf("pending plan: %v, want APPROVAL_REQUIRED", err)
	}
	decide(t, ws, p, Approved)
	if d, err := Check(ws, op("x")); err != nil || !d.Run {
		t.Fatalf("approved plan: %+v %v", d, err)
	}
	advance(Lifetime + time.Second)
	if _, err := Check(ws, op("x")); envelope.CodeOf(err) != envelope.ApprovalRequired {
		t.Fatalf("expired plan: %v, want APPROVAL_REQUIRED", err)
	}
}

func TestCheckManualApprovals(t *testing.T) {
	advance := fixedClock(t, base)
	ws := testWS(t, Manual)

	first, _ := Check(ws, op("a"))
	again, _ := Check(ws, op("a"))
	if again.Staged.Approval.ID != first.Staged.Approval.ID || again.Staged.Fresh {
		t.Fatalf("re-issuing a pending call staged a new record: %s then %s", first.Staged.Approval.ID, again.Staged.Approval.ID)
	}
	other, _ := Check(ws, op("b"))
	if other.Staged.Approval.ID == first.Staged.Approval.ID {
		t.Fatal("a different operation matched another's approval")
	}

	decide(t, ws, first.Staged.Approval.ID, Approved)
	run, err := Check(ws, op("a"))
	if err != nil || !run.Run || run.Approval != first.Staged.Approval.ID {
		t.Fatalf("approved: %+v %v", run, err)
	}
	// Until it is consumed the approval still matches; once consumed, the
	// same call is staged afresh.
	if err := Consume(ws, run.Approval); err != nil {
		t.Fatal(err)
	}
	after, _ := Check(ws, op("a"))
	if after.Staged == nil || after.Staged.Approval.ID == first.Staged.Approval.ID {
		t.Fatalf("a consumed approval authorised a second run: %+v", after)
	}

	decide(t, ws, other.Staged.Approval.ID, Denied)
	_, err = Check(ws, op("b"))
	if envelope.CodeOf(err) != envelope.ApprovalDenied {
		t.Fatalf("denied operation: %v, want APPROVAL_DENIED", err)
	}
	if e := err.(*envelope.Error); e.Details["approvalId"] != other.Staged.Approval.ID {
		t.Fatalf("details.approvalId = %v", e.Details["approvalId"])
	}
	// The denial blocks for 24 hours, then expires and the call is staged again.
	advance(Lifetime + time.Minute)
	d, err := Check(ws, op("b"))
	if err != nil || d.Staged == nil || d.Staged.Approval.ID == other.Staged.Approval.ID {
		t.Fatalf("after the denial expired: %+v %v", d, err)
	}
}

func TestCheckCapsRecords(t *testing.T) {
	advance := fixedClock(t, base)
	ws := testWS(t, Manual)
	for i := 0; i < MaxRecords+20; i++ {
		advance(time.Second)
		d, err := Check(ws, op(fmt.Sprintf("op%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if i < 10 {
			decide(t, ws, d.Staged.Approval.ID, Denied)
		}
	}
	s := readState(t, ws)
	if len(s.Records) != MaxRecords {
		t.Fatalf("%d records kept, want %d", len(s.Records), MaxRecords)
	}
	// The oldest pending records go first: staging many calls never
	// flushes a human's denial.
	denied := 0
	for _, r := range s.Records {
		if r.Status == Denied {
			denied++
		}
	}
	if denied != 10 {
		t.Fatalf("%d of 10 denials kept after staging %d calls", denied, MaxRecords+20)
	}
	if _, err := Check(ws, op("op0")); envelope.CodeOf(err) != envelope.ApprovalDenied {
		t.Fatalf("the denied call after the flood: %v", err)
	}
}

// TestCheckGrants: in Manual mode a kind the workspace was granted (an
// approved sub-agent run's own calls) runs without staging; other kinds
// stage; a denial and the destructive check still refuse a granted kind.
func TestCheckGrants(t *testing.T) {
	ws := testWS(t, Manual)
	ws.Grants = []string{"command"}
	cmd := op("run echo")
	cmd.Kind = "command"
	if d, err := Check(ws, cmd); err != nil || !d.Run || d.Staged != nil {
		t.Fatalf("granted kind: %+v %v, want run", d, err)
	}
	if d, err := Check(ws, op("commit")); err != nil || d.Staged == nil {
		t.Fatalf("kind not granted: %+v %v, want staged", d, err)
	}
	destructive := cmd
	destructive.Destructive = true
	if _, err := Check(ws, destructive); envelope.CodeOf(err) != envelope.ProtectedPath {
		t.Errorf("granted destructive: %v, want PROTECTED_PATH", err)
	}
	// A human denies the operation outside the run: the grant does not
	// override the denial.
	plain := testWS(t, Manual)
	plain.Root, plain.Store = ws.Root, ws.Store
	d, err := Check(plain, cmd)
	if err != nil || d.Staged == nil {
		t.Fatalf("staging for the denial: %+v %v", d, err)
	}
	decide(t, plain, d.Staged.Approval.ID, Denied)
	if _, err := Check(ws, cmd); envelope.CodeOf(err) != envelope.ApprovalDenied {
		t.Errorf("granted but denied: %v, want APPROVAL_DENIED", err)
	}
}
