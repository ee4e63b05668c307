package gc

import (
	"slices"
	"testing"

	"github.com/agentic-workspace/aw/engine/store"
)

// TestIdsIn: the ids an approval names are found wherever they appear in
// its review path or resume arguments, and look-alikes are not.
func TestIdsIn(t *testing.T) {
	tx, job, art := store.NewID("tx"), store.NewID("job"), store.NewID("artifact")
	text := `{"Review":".agentic/transactions/` + tx + `/changes.diff","Resume":{"arguments":{"job_id":"` + job + `","log":".agentic/artifacts/` + art + `-out.txt","x":"tx_short","y":"notx_` + tx[3:] + `"}}}`
	got := idsIn(text)
	for _, want := range []string{tx, job, art} {
		if !slices.Contains(got, want) {
			t.Errorf("%s not found in %s: %v", want, text, got)
		}
	}
	if len(got) != 3 {
		t.Errorf("found %v, want exactly the three ids", got)
	}
}
