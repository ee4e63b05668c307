package commands

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/workspace"
	"github.com/agentic-workspace/aw/output/visible"
)

// live reports whether a foreground command's output is shown as it
// runs: a human reads the table on a terminal. JSON, --jq, --fields and
// output that is not a terminal get the envelope alone, as before.
func (a *app) live() bool {
	return a.tableMode() && a.io.Terminal(a.io.Out) && !a.filtering()
}

// followPoll is how often the logs of a running job are read.
const followPoll = 50 * time.Millisecond

// follow shows on the terminal, while this aw runs a command in the
// foreground, what the command writes: the job this process launches
// appears under .agentic/jobs/ (its record names this process as
// launcher), and its two logs are read as they grow, stdout and stderr
// as they come at each poll. Every byte goes through visible.Block, as
// any text from the agent's side does: the command's control sequences
// are shown, never obeyed. stop reads the logs a last time and returns
// once everything is written.
func (a *app) follow(ws *workspace.Workspace) (stop func()) {
	dir := ws.Store.Path("jobs")
	before := map[string]bool{}
	if list, err := os.ReadDir(dir); err == nil {
		for _, e := range list {
			before[e.Name()] = true
		}
	}
	f := &follower{out: a.io.Out, dir: dir, before: before, self: os.Getpid()}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(followPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				f.step(true)
				f.close()
				return
			case <-tick.C:
				f.step(false)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

type follower struct {
	out    io.Writer
	dir    string
	before map[string]bool
	self   int
	logs   []*followed // stdout, stderr; nil until the job is found
	last   byte        // the last byte written, to end on a new line
}

type followed struct {
	file    *os.File
	pending []byte // the start of a character the next read completes
}

func (f *follower) step(final bool) {
	if f.logs == nil && !f.find() {
		return
	}
	buf := make([]byte, 32<<10)
	for _, l := range f.logs {
		for {
			n, err := l.file.Read(buf)
			if n > 0 {
				chunk := append(l.pending, buf[:n]...)
				cut := len(chunk)
				if !final {
					cut = completeRunes(chunk)
				}
				f.write(chunk[:cut])
				l.pending = append([]byte(nil), chunk[cut:]...)
			}
			if err != nil || n == 0 {
				break
			}
		}
		if final && len(l.pending) > 0 {
			f.write(l.pending)
			l.pending = nil
		}
	}
}

// find looks for the job this process launched among the new entries.
func (f *follower) find() bool {
	list, err := os.ReadDir(f.dir)
	if err != nil {
		return false
	}
	for _, e := range list {
		if f.before[e.Name()] {
			continue
		}
		job := filepath.Join(f.dir, e.Name())
		raw, err := os.ReadFile(filepath.Join(job, "job.json"))
		if err != nil {
			continue // not written yet: the next poll sees it
		}
		var j struct {
			LauncherPid int `json:"launcherPid"`
		}
		if json.Unmarshal(raw, &j) != nil {
			continue
		}
		if j.LauncherPid != f.self {
			f.before[e.Name()] = true // another process's job
			continue
		}
		for _, name := range []string{"stdout.log", "stderr.log"} {
			file, err := os.Open(filepath.Join(job, name))
			if err != nil {
				f.close()
				return false // the logs are opened just after the record: next poll
			}
			f.logs = append(f.logs, &followed{file: file})
		}
		return true
	}
	return false
}

func (f *follower) write(b []byte) {
	if len(b) == 0 {
		return
	}
	io.WriteString(f.out, visible.Block(string(b)))
	f.last = b[len(b)-1]
}

func (f *follower) close() {
	for _, l := range f.logs {
		l.file.Close()
	}
	f.logs = nil
	if f.last != 0 {
		// The output ends on a line of its own, a blank line before the envelope.
		end := "\n"
		if f.last != '\n' {
			end = "\n\n"
		}
		io.WriteString(f.out, end)
		f.last = 0
	}
}

// completeRunes is how much of b ends on a whole character: a character
// cut between two reads is shown whole with the next one, not as escapes.
func completeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}
