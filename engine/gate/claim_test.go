package gate

import (
	"sync"
	"testing"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// TestClaimSingleUse: one approval, 50 identical resumes released at once
// by one barrier, each through its own workspace handle (as 50 aw
// processes would be): exactly one is told to run, with that approval;
// the other 49 are staged, all on one new pending record; the approval
// ends consumed. Which goroutine wins varies, the count never does.
func TestClaimSingleUse(t *testing.T) {
	fixedClock(t, base)
	ws := testWS(t, Manual)
	first, err := Check(ws, op("deploy"))
	if err != nil || first.Staged == nil {
		t.Fatalf("staging: %+v %v", first, err)
	}
	id := first.Staged.Approval.ID
	decide(t, ws, id, Approved)

	const resumes = 50
	handles := make([]*workspace.Workspace, resumes)
	for i := range handles {
		h, err := workspace.Open(workspace.Options{Root: ws.Root, Tier: workspace.TierExec, Caller: workspace.Caller{Terminal: true, Confirm: yes}})
		if err != nil {
			t.Fatal(err)
		}
		handles[i] = h
	}
	decisions := make([]Decision, resumes)
	errs := make([]error, resumes)
	barrier := make(chan struct{})
	var wg sync.WaitGroup
	for i := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-barrier
			decisions[i], errs[i] = Check(handles[i], op("deploy"))
		}()
	}
	close(barrier)
	wg.Wait()

	ran, fresh := 0, 0
	restaged := map[string]bool{}
	for i, d := range decisions {
		if errs[i] != nil {
			t.Fatalf("resume %d: %v", i, errs[i])
		}
		switch {
		case d.Run:
			ran++
			if d.Approval != id {
				t.Errorf("resume %d ran on %q, want approval %s", i, d.Approval, id)
			}
		case d.Staged != nil:
			restaged[d.Staged.Approval.ID] = true
			if d.Staged.Fresh {
				fresh++
			}
		default:
			t.Errorf("resume %d: neither run nor staged: %+v", i, d)
		}
	}
	if ran != 1 {
		t.Fatalf("%d of %d identical resumes ran on one approval, want exactly 1", ran, resumes)
	}
	if len(restaged) != 1 || fresh != 1 || restaged[id] {
		t.Errorf("the other resumes were staged on %v (%d fresh), want one new pending record", restaged, fresh)
	}
	s, err := Load(ws, base)
	if err != nil {
		t.Fatal(err)
	}
	if r := s.find(id); r == nil || r.Status != Consumed || !r.DecidedAt.Equal(base) {
		t.Fatalf("the approval after the claim: %+v", r)
	}
	if got := len(s.PendingApprovals()); got != 1 {
		t.Errorf("%d pending approvals after the race, want 1", got)
	}
}

// TestConsume: Consume turns an approved record into a consumed one, once;
// it never touches a pending or denied record, an unknown id or "".
func TestConsume(t *testing.T) {
	advance := fixedClock(t, base)
	ws := testWS(t, Manual)
	ids := map[string]string{}
	for _, title := range []string{"approved", "pending", "denied"} {
		d, err := Check(ws, op(title))
		if err != nil || d.Staged == nil {
			t.Fatalf("staging %s: %+v %v", title, d, err)
		}
		ids[title] = d.Staged.Approval.ID
	}
	decide(t, ws, ids["approved"], Approved)
	decide(t, ws, ids["denied"], Denied)
	advance(1e9)
	for _, id := range []string{ids["approved"], ids["pending"], ids["denied"], "approval_unknown", ""} {
		if err := Consume(ws, id); err != nil {
			t.Fatalf("Consume(%q): %v", id, err)
		}
	}
	s, err := Load(ws, Clock())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"approved": Consumed, "pending": Pending, "denied": Denied}
	for title, id := range ids {
		r := s.find(id)
		if r == nil || r.Status != want[title] {
			t.Errorf("%s after Consume: %+v, want %s", title, r, want[title])
		}
	}
	if r := s.find(ids["approved"]); r != nil && !r.DecidedAt.Equal(Clock()) {
		t.Errorf("consumed at %v, want %v", r.DecidedAt, Clock())
	}
	// Consumed is terminal: the same call is staged afresh, and a second
	// Consume changes nothing.
	d, err := Check(ws, op("approved"))
	if err != nil || d.Staged == nil || !d.Staged.Fresh || d.Staged.Approval.ID == ids["approved"] {
		t.Fatalf("the call after its approval was consumed: %+v %v", d, err)
	}
	advance(1e9)
	Consume(ws, ids["approved"])
	if s, _ := Load(ws, Clock()); s.find(ids["approved"]).DecidedAt.Equal(Clock()) {
		t.Error("a second Consume rewrote the consumed record")
	}
}
