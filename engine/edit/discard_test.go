package edit

import (
	"context"
	"os"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// Discard drops a planned transaction and nothing else: the file stays, the
// transaction is gone; an applied one and a missing one are refused.
func TestDiscard(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	tx := previewed(t, ws, `[{"type":"replace","path":"a.txt","search":"one","replacement":"uno"}]`)
	env, err := Discard(context.Background(), ws, &TxRequest{TransactionID: tx.ID})
	if err != nil {
		t.Fatal(err)
	}
	if r := env.Data.(*Result); r.Status != "discarded" || r.TransactionID != tx.ID {
		t.Errorf("result %+v", r)
	}
	if _, err := os.Stat(txDir(ws, tx.ID)); !os.IsNotExist(err) {
		t.Errorf("the transaction directory is still there: %v", err)
	}
	if content(ws, "a.txt") != "one\n" {
		t.Errorf("discard changed the file")
	}
	_, err = Discard(context.Background(), ws, &TxRequest{TransactionID: tx.ID})
	wantErr(t, err, envelope.NotFound, "", tx.ID)

	done := committed(t, ws, `[{"type":"replace","path":"a.txt","search":"one","replacement":"uno"}]`)
	_, err = Discard(context.Background(), ws, &TxRequest{TransactionID: done.ID})
	wantErr(t, err, envelope.TransactionState, "", "only a planned transaction")
	if status(t, ws, done.ID).Status != Applied || content(ws, "a.txt") != "uno\n" {
		t.Errorf("a refused discard changed the applied transaction")
	}
}
