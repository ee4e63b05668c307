package edit

import (
	"context"
	"fmt"
	"os"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Discard drops a planned transaction: it was never written, so nothing in
// the workspace changes. Only a planned one can be discarded; an applied
// one is undone with rollback.
func Discard(ctx context.Context, ws *workspace.Workspace, req *TxRequest) (envelope.Envelope, error) {
	unlock, err := ws.Store.Lock()
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer unlock()
	tx, err := load(ws, req.TransactionID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if tx.Status != Planned {
		return envelope.Envelope{}, envelope.Errorf(envelope.TransactionState,
			"transaction %s is %s: only a planned transaction can be discarded (an applied one is undone with `aw edit rollback %s`)", tx.ID, tx.Status, tx.ID).With("transactionId", tx.ID)
	}
	env := result(ws, tx, "")
	if err := os.RemoveAll(txDir(ws, tx.ID)); err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot remove transaction %s: %v", tx.ID, err)
	}
	r := env.Data.(*Result)
	r.Status = "discarded"
	env.Summary = fmt.Sprintf("Transaction %s discarded: nothing was written", tx.ID)
	return env, nil
}
