package main

import (
	"fmt"
	"testing"

	"github.com/agentic-workspace/aw/engine/gate"
)

// TestDenialOutlivesPendingFlood: a human denies one command; the agent
// then stages 301 other calls, more than the 300 records kept. The denial
// is still there, and the identical call is still APPROVAL_DENIED instead
// of being staged afresh for a tired human to accept.
func TestDenialOutlivesPendingFlood(t *testing.T) {
	dir := cmdWorkspace(t, 0, "")
	r := runAW(t, dir, nil, "command", "run", "--", "echo", "denied")
	expect(t, r, 3, "")
	denied := r.field(t, ".data.approval.id").(string)
	expect(t, runAWEnv(t, dir, nil, approver(t), "approval", "deny", denied, "not this one"), 0, "")

	for i := 0; i < gate.MaxRecords+1; i++ {
		r := runAW(t, dir, nil, "command", "run", "--", "echo", fmt.Sprint(i))
		if r.Code != 3 {
			t.Fatalf("staging call %d: exit %d %s", i, r.Code, r.Stdout)
		}
	}
	recs := state(t, dir)
	if len(recs) != gate.MaxRecords {
		t.Fatalf("%d records kept, want %d", len(recs), gate.MaxRecords)
	}
	if recs[denied].Status != gate.Denied {
		t.Fatalf("the denial was pruned by %d pending records: %+v", gate.MaxRecords+1, recs[denied])
	}
	r = runAW(t, dir, nil, "command", "run", "--", "echo", "denied")
	expect(t, r, 1, "APPROVAL_DENIED")
	if r.field(t, ".error.details.approvalId") != denied {
		t.Fatalf("refused by another record: %s", r.Stdout)
	}
}
