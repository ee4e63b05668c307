package ask

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// A channel record says that a human can answer questions through a
// front end that is not a terminal: aw mcp, connected to a client that
// supports elicitation, keeps one under .agentic/questions/channels/ for
// as long as it runs, so a question asked elsewhere (a sub-agent's run,
// another aw ask) is asked rather than refused, and the server offers it
// to the human through the client. A record whose process is gone counts
// for nothing.
type channelRecord struct {
	Kind  string    `json:"kind"`
	Pid   int       `json:"pid"`
	Start uint64    `json:"start"`
	Since time.Time `json:"since"`
}

func channelDir(ws *workspace.Workspace) string { return ws.Store.Path("questions", "channels") }

// OpenChannel records this process as a channel of kind; close removes the
// record.
func OpenChannel(ws *workspace.Workspace, kind string) (close func(), err error) {
	if err := os.MkdirAll(channelDir(ws), 0o755); err != nil {
		return nil, err
	}
	pid := os.Getpid()
	p := filepath.Join(channelDir(ws), kind+"-"+strconv.Itoa(pid)+".json")
	rec := channelRecord{Kind: kind, Pid: pid, Start: proc.Start(pid), Since: time.Now().UTC()}
	if err := ws.Store.WriteJSON(p, &rec); err != nil {
		return nil, err
	}
	return func() { os.Remove(p) }, nil
}

// liveChannel reports a channel record whose process still runs; stale
// ones are removed on the way.
func liveChannel(ws *workspace.Workspace) bool {
	ents, _ := os.ReadDir(channelDir(ws))
	live := false
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(channelDir(ws), e.Name())
		var rec channelRecord
		if found, err := ws.Store.ReadJSON(p, &rec); err != nil || !found {
			continue
		}
		if proc.Alive(rec.Pid, rec.Start) {
			live = true
		} else {
			os.Remove(p)
		}
	}
	return live
}
