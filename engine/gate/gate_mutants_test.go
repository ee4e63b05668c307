package gate

import (
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// These tests pin gate rules that mutation testing (scripts/mutants) found
// undefended.

// A denial binds in Auto mode too, whichever record it is (the very first
// included); it names the human's reason only when there is one; a denied
// plan or another operation's denial does not refuse this one.
func TestDenialBindsInAuto(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Auto)
	addRecord(t, ws, Record{ID: "approval_denied", Kind: "command", Status: Denied, Hash: op("x").Hash, Note: "not on Fridays"})
	addRecord(t, ws, Record{ID: "approval_silent", Kind: "command", Status: Denied, Hash: op("y").Hash})
	addRecord(t, ws, Record{ID: "plan_denied", Kind: "plan", Status: Denied, Hash: op("z").Hash})
	addRecord(t, ws, Record{ID: "approval_pending", Kind: "command", Status: Pending, Hash: op("w").Hash})
	_, err := Check(ws, op("x"))
	e, ok := err.(*envelope.Error)
	if !ok || e.Code != envelope.ApprovalDenied || e.Details["approvalId"] != "approval_denied" || e.Details["userReason"] != "not on Fridays" || !strings.Contains(e.Message, `saying "not on Fridays"`) {
		t.Fatalf("the first record denied: %v", err)
	}
	_, err = Check(ws, op("y"))
	if e, ok := err.(*envelope.Error); !ok || e.Code != envelope.ApprovalDenied || e.Details["userReason"] != nil || strings.Contains(e.Message, "saying") {
		t.Fatalf("a denial without a reason: %v", err)
	}
	for _, title := range []string{"z", "w", "v"} {
		if d, err := Check(ws, op(title)); err != nil || !d.Run {
			t.Errorf("op %s in Auto: %+v %v", title, d, err)
		}
	}
}

// Consume touches only the record it names.
func TestConsumeOnlyItsRecord(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Manual)
	addRecord(t, ws, Record{ID: "approval_one", Kind: "command", Status: Approved, Hash: op("1").Hash})
	addRecord(t, ws, Record{ID: "approval_two", Kind: "command", Status: Approved, Hash: op("2").Hash})
	if err := Consume(ws, "approval_one"); err != nil {
		t.Fatal(err)
	}
	s, _ := Load(ws, base)
	if s.find("approval_one").Status != Consumed || s.find("approval_two").Status != Approved {
		t.Fatalf("after Consume(approval_one): %+v", s.Records)
	}
}

// clip keeps a string of exactly n bytes whole.
func TestClipExactLength(t *testing.T) {
	if got := clip("abcdef", 6); got != "abcdef" {
		t.Errorf("clip to its own length = %q", got)
	}
	if got := clip("abcdefg", 6); got == "abcdefg" || !strings.HasSuffix(got, "…") {
		t.Errorf("clip one byte over = %q", got)
	}
}
