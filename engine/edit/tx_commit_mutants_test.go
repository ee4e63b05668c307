package edit

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// More commit rules mutation testing (scripts/mutants) found undefended:
// what a successful commit returns and leaves, the idempotency key's
// early lookup, and what a planned transaction records.

// A commit returns the applied transaction and leaves no journal.
func TestCommitReturnsApplied(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	tx := previewed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"}]`)
	env, err := Commit(context.Background(), ws, &TxRequest{TransactionID: tx.ID})
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, env)
	if r.TransactionID != tx.ID || r.Status != Applied || !r.Committed || !strings.HasPrefix(env.Summary, "Committed "+tx.ID) {
		t.Errorf("result %s %s committed %v: %q", r.TransactionID, r.Status, r.Committed, env.Summary)
	}
	if journalLeft(ws) {
		t.Error("a commit left the journal")
	}
	if got := status(t, ws, tx.ID); got.Status != Applied || got.CommittedAt.IsZero() {
		t.Errorf("recorded %s at %v", got.Status, got.CommittedAt)
	}
}

// A retried apply with its idempotency key returns the committed
// transaction, though its create now finds the file it made.
func TestApplyRetryWithKeyAfterCommit(t *testing.T) {
	ws := planWS(t, nil)
	req := &PreviewRequest{Operations: ops(t, `[{"type":"create","path":"n.txt","content":"n\n"}]`), IdempotencyKey: "once"}
	env, err := Apply(context.Background(), ws, req)
	if err != nil {
		t.Fatal(err)
	}
	first := resultOf(t, env).TransactionID
	env, err = Apply(context.Background(), ws, req)
	if err != nil {
		t.Fatalf("the retry: %v", err)
	}
	if r := resultOf(t, env); r.TransactionID != first || !r.NoOp {
		t.Errorf("the retry returned %s (no-op %v), want %s", r.TransactionID, r.NoOp, first)
	}
}

// A transaction of mkdirs that all exist already, and nothing else, is
// refused as nothing to do; one new directory, or any file change, or an
// operation that changes nothing without a mkdir, is planned.
func TestPlanNothingButExistingDirectories(t *testing.T) {
	files := map[string]string{"d/": "", "e/": "", "a.txt": "one\n"}
	ws := planWS(t, files)
	_, _, err := plan(ws, &PreviewRequest{Operations: ops(t, `[{"type":"mkdir","path":"d"},{"type":"mkdir","path":"e"}]`)})
	wantErr(t, err, envelope.InvalidInput, "", "every requested directory already exists (d, e)")
	for _, raw := range []string{
		`[{"type":"mkdir","path":"d"},{"type":"mkdir","path":"new"}]`,
		`[{"type":"mkdir","path":"d"},{"type":"rewrite","path":"a.txt","content":"x"}]`,
		`[{"type":"delete","path":"z","ignore_missing":true}]`,
	} {
		if _, _, err := plan(ws, &PreviewRequest{Operations: ops(t, raw)}); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

// A transaction is destructive exactly when an operation gave a reason.
func TestPlanDestructiveFlag(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	for raw, want := range map[string]bool{
		`[{"type":"create","path":"n.txt","content":""}]`: false,
		`[{"type":"delete","path":"a.txt"}]`:              true,
	} {
		tx := previewed(t, ws, raw)
		if tx.Destructive != want || (len(tx.DestructiveReasons) > 0) != want {
			t.Errorf("%s: destructive %v %v, want %v", raw, tx.Destructive, tx.DestructiveReasons, want)
		}
	}
}

// The recorded operations carry every path in its root-relative form and
// leave the fields an operation does not use empty; a copy's source is
// read (a protected file may be copied), not written.
func TestPlanRecordsNormalizedOperations(t *testing.T) {
	ws := planWS(t, map[string]string{".git/HEAD": "ref\n", "a.txt": "one\n"})
	tx := previewed(t, ws, `[{"type":"copy","from":"./.git/HEAD","to":"sub/../h.txt"},{"type":"rewrite","path":"./a.txt","content":"x"}]`)
	if len(tx.Operations) != 2 {
		t.Fatalf("recorded %d operations", len(tx.Operations))
	}
	if o := tx.Operations[0]; o.From != ".git/HEAD" || o.To != "h.txt" || o.Path != "" {
		t.Errorf("copy recorded as %q %q %q", o.Path, o.From, o.To)
	}
	if o := tx.Operations[1]; o.Path != "a.txt" || o.From != "" || o.To != "" {
		t.Errorf("rewrite recorded as %q %q %q", o.Path, o.From, o.To)
	}
	if _, err := Preview(context.Background(), ws, &PreviewRequest{Operations: ops(t, `[{"type":"move","from":".git/HEAD","to":"h2.txt"}]`)}); err == nil {
		t.Error("a move of a protected file was planned")
	}
}

// A list of paths in a message names ten and counts the rest.
func TestJoinPathsBound(t *testing.T) {
	var ten []string
	for i := 0; i < 10; i++ {
		ten = append(ten, string(rune('a'+i)))
	}
	if got := joinPaths(ten); got != "a, b, c, d, e, f, g, h, i, j" {
		t.Errorf("ten paths: %q", got)
	}
	if got := joinPaths(append(ten, "k", "l")); got != "a, b, c, d, e, f, g, h, i, j and 2 more" {
		t.Errorf("twelve paths: %q", got)
	}
}

// A transaction with nothing destructive reports destructiveReasons as an
// empty list, not null.
func TestResultListsNeverNull(t *testing.T) {
	ws := planWS(t, nil)
	tx := previewed(t, ws, `[{"type":"mkdir","path":"d"}]`)
	raw, _ := json.Marshal(resultOf(t, result(ws, tx, "")))
	for _, field := range []string{`"destructiveReasons":[]`, `"files":[]`, `"directories":[{`} {
		if !strings.Contains(string(raw), field) {
			t.Errorf("result lacks %s: %s", field, raw)
		}
	}
}

// An idempotency key returns its transaction for the same operations and
// refuses other ones; a key whose transaction was lost is bound to the new
// one, which the next call with the key then returns.
func TestIdempotencyKeyBinding(t *testing.T) {
	ctx := context.Background()
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	req := &PreviewRequest{Operations: ops(t, `[{"type":"rewrite","path":"a.txt","content":"A\n"}]`), IdempotencyKey: "k"}
	preview := func() string {
		t.Helper()
		env, err := Preview(ctx, ws, req)
		if err != nil {
			t.Fatal(err)
		}
		return txID(t, env)
	}
	first := preview()
	if again := preview(); again != first {
		t.Errorf("the same key and operations gave %s, want %s", again, first)
	}
	other := &PreviewRequest{Operations: ops(t, `[{"type":"rewrite","path":"a.txt","content":"B\n"}]`), IdempotencyKey: "k"}
	_, err := Preview(ctx, ws, other)
	wantErr(t, err, envelope.EditConflict, "key-reused", "was used by "+first)
	os.RemoveAll(txDir(ws, first))
	second := preview()
	if second == first {
		t.Fatal("a lost transaction was returned")
	}
	if again := preview(); again != second {
		t.Errorf("after rebinding the key gave %s, want %s", again, second)
	}
}

// A transaction an idempotency key names is never dropped as a duplicate:
// applying it while an identical call waits for approval returns that
// approval and keeps the keyed transaction, whose id the caller holds.
func TestApplyKeepsKeyedTransaction(t *testing.T) {
	ctx := context.Background()
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	manual(ws)
	o := ops(t, `[{"type":"rewrite","path":"a.txt","content":"A\n"}]`)
	env, err := Preview(ctx, ws, &PreviewRequest{Operations: o, IdempotencyKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	keyed := txID(t, env)
	if env, err = Apply(ctx, ws, &PreviewRequest{Operations: o}); err != nil {
		t.Fatal(err)
	}
	waiting := txID(t, env)
	if env, err = Apply(ctx, ws, &PreviewRequest{Operations: o, IdempotencyKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if r := resultOf(t, env); !r.PendingApproval() || r.TransactionID != waiting {
		t.Errorf("the keyed apply returned %s %s, want the pending %s", r.Status, r.TransactionID, waiting)
	}
	if _, err := load(ws, keyed); err != nil {
		t.Errorf("the keyed transaction was dropped: %v", err)
	}
}
