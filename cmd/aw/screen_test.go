package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// These tests read aw's terminal output the way a human does: the built
// binary runs under a real pseudo-terminal and its bytes go into a VT100
// screen model (vt10x), which obeys carriage returns, backspaces, erase
// and cursor sequences as a terminal would. The screen must show what will
// run, with every control character from the agent escaped.

const screenCols, screenRows = 240, 400

// screenOf renders raw terminal bytes and returns the text a human sees,
// trailing blanks removed, and the window title the bytes set.
func screenOf(raw []byte) (string, string) {
	term := vt10x.New(vt10x.WithSize(screenCols, screenRows))
	term.Write(raw)
	var lines []string
	for _, l := range strings.Split(term.String(), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n"), term.Title()
}

// onScreen runs aw with stdout and stderr on a pseudo-terminal and returns
// the screen. With answer set, stdin is the terminal too and answer is
// typed after the y/N question; otherwise stdin is the given bytes.
func onScreen(t *testing.T, dir string, env []string, stdin []byte, answer string, args ...string) (screen, title string) {
	t.Helper()
	return screenOf(onPty(t, screenCols, dir, env, stdin, answer, args...))
}

// onPty runs aw on a pseudo-terminal cols wide and returns the raw bytes
// it wrote there.
func onPty(t *testing.T, cols int, dir string, env []string, stdin []byte, answer string, args ...string) []byte {
	t.Helper()
	p := startPty(t, cols, dir, env, stdin, answer != "", args...)
	if answer != "" {
		p.waitFor("[y/N]")
		p.ptmx.Write([]byte(answer + "\r"))
	}
	return p.wait()
}

// ptySession is aw running on a pseudo-terminal, its output read as it
// comes.
type ptySession struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

// startPty starts aw with stdout and stderr on a pseudo-terminal cols
// wide; with ttyIn, stdin is the terminal too, otherwise the given bytes.
func startPty(t *testing.T, cols int, dir string, env []string, stdin []byte, ttyIn bool, args ...string) *ptySession {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		testenv.NoPty(t, err)
	}
	t.Cleanup(func() { ptmx.Close() })
	pty.Setsize(ptmx, &pty.Winsize{Cols: uint16(cols), Rows: 60})
	cmd := exec.Command(awBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AW_ROOT=", "AW_APPROVER_TOKEN=", "NO_COLOR=1", "PAGER=cat", "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"))
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = tty, tty
	// The terminal is the controlling terminal of a session of its own,
	// as for a human's shell (child fd 0 or 1).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if ttyIn {
		cmd.Stdin = tty
	} else {
		cmd.Stdin = bytes.NewReader(stdin)
		cmd.SysProcAttr.Ctty = 1
	}
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close()
	p := &ptySession{t: t, cmd: cmd, ptmx: ptmx, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return p
}

// seen is what aw wrote so far.
func (p *ptySession) seen() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]byte(nil), p.out.Bytes()...)
}

// waitFor waits until aw has written s (at most 20 seconds).
func (p *ptySession) waitFor(s string) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !bytes.Contains(p.seen(), []byte(s)) {
		if time.Now().After(deadline) {
			p.cmd.Process.Kill()
			p.t.Fatalf("%q never appeared: %q", s, p.seen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait waits for aw to exit and returns everything it wrote.
func (p *ptySession) wait() []byte {
	p.cmd.Wait()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
	return p.seen()
}

// hostile is what an agent puts in a command line: a carriage return and an
// erase-line that, written raw, replace "rm -rf data" with "ls -la" on the
// human's screen, backspaces over a word, and a bidi override.
const hostileLine = "rm -rf data # \r\x1b[2K\x1b[1A\x1b[2Kls -la\b\b\b\b\b\bls -la \u202eexe.txt"

// hostileArgv stages the same characters as an argv: interpreter sh
// refuses a line holding control characters before anything is staged.
var hostileArgv = []string{"rm", "-rf", "data", "--", "#", "\r\x1b[2K\x1b[1A\x1b[2Kls", "-la\b\b\b\b\b\bls", "-la", "\u202eexe.txt"}

// hostileShown is the staged command as the screen must show it.
const hostileShown = `rm -rf data -- '#' '\r\x1b[2K\x1b[1A\x1b[2Kls' -la\b\b\b\b\b\bls -la \u202eexe.txt`

func TestScreenModelObeysControls(t *testing.T) {
	// The screen model is a real terminal model: written raw, the line
	// hides the command that would run. Without this the tests below
	// could pass against a model that ignores control characters.
	screen, _ := screenOf([]byte("title: " + hostileLine + "\r\n"))
	if strings.Contains(screen, "rm -rf") {
		t.Fatalf("the screen model did not obey the controls: %q", screen)
	}
	screen, title := screenOf([]byte("x\x1b]0;owned\x07y"))
	if title != "owned" || strings.Contains(screen, "owned") {
		t.Fatalf("the screen model did not obey OSC 0: %q %q", screen, title)
	}
}

func screenWS(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".agentic", "config.json"), `{"permissionMode": 0, "commands": {"allow": ["rm", "ls"], "interpreter": "sh"}}`)
	writeFile(t, filepath.Join(dir, "data", "keep.txt"), "precious\n")
	return dir
}

// TestScreenStagedCommand: a staged command line with control characters
// is shown escaped on the confirmation screen of aw approval accept, in
// approval show and list tables, in JSON printed to a terminal, and in the
// block aw prompt appends; nothing of it moves the cursor.
func TestScreenStagedCommand(t *testing.T) {
	dir := screenWS(t)
	r := runAW(t, dir, nil, append([]string{"command", "run", "--"}, hostileArgv...)...)
	if r.Code != 3 {
		t.Fatalf("staging the line: exit %d %s", r.Code, r.Stdout)
	}
	id := r.field(t, ".data.approval.id").(string)
	title := state(t, dir)[id].Title
	if !strings.Contains(title, "\r\x1b[2K") {
		t.Fatalf("the staged title is not the raw line: %q", title)
	}

	screen, wtitle := onScreen(t, dir, nil, nil, "N", "approval", "accept", id)
	mustShow(t, "accept confirmation", screen, hostileShown, "title:", "kind:        command")
	if wtitle != "" {
		t.Fatalf("the window title was set to %q", wtitle)
	}
	if st := state(t, dir); st[id].Status != "pending" {
		t.Fatalf("answering N decided %s", st[id].Status)
	}
	screen, _ = onScreen(t, dir, nil, nil, "n", "approval", "deny", id, "no")
	mustShow(t, "deny confirmation", screen, hostileShown)

	screen, _ = onScreen(t, dir, nil, nil, "", "approval", "show", id)
	mustShow(t, "approval show table", screen, hostileShown)
	screen, _ = onScreen(t, dir, nil, nil, "", "approval", "list")
	mustShow(t, "approval list table", screen, `rm -rf data -- '#' '\r\x1b[2K`)
	screen, _ = onScreen(t, dir, nil, nil, "", append([]string{"command", "run", "--"}, hostileArgv...)...)
	mustShow(t, "the staging envelope's table", screen, `rm -rf data -- '#' '\r\x1b[2K`)

	// JSON on a terminal: the same envelope, escapes and all.
	screen, _ = onScreen(t, dir, nil, nil, "", "approval", "show", id, "-o", "json")
	mustShow(t, "JSON on a terminal", screen, `\u202eexe.txt`, `\r\u001b[2K`)
	line := screen[strings.Index(screen, `{"protocol"`):]
	var env struct {
		Data struct {
			Approval struct{ Title string } `json:"approval"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(line, "\n", "")), &env); err != nil || env.Data.Approval.Title != title {
		t.Fatalf("the JSON a human sees does not decode to the staged title: %v %q", err, env.Data.Approval.Title)
	}

	// aw prompt's mode block lists the pending title.
	screen, _ = onScreen(t, dir, nil, []byte("what next?"), "", "prompt", "--text")
	mustShow(t, "aw prompt block", screen, `rm -rf data -- '#' '\r\x1b[2K`)
}

// TestScreenStagedDiff: a transaction whose content carries ANSI
// sequences and whose file name carries a bidi override shows both escaped
// in the diff on the confirmation screen and in inspect read.
func TestScreenStagedDiff(t *testing.T) {
	dir := screenWS(t)
	name := "invoice\u202etxt.exe"
	content := "total: 10\x1b[1A\x1b[2K\rtotal: 0\x1b]0;owned\x07\n\x1b[31mred\x1b[0m\n"
	op, _ := json.Marshal(map[string]string{"type": "create", "path": name, "content": content})
	r := runAW(t, dir, nil, "edit", "apply", "--op", string(op))
	if r.Code != 3 {
		t.Fatalf("staging the transaction: exit %d %s", r.Code, r.Stdout)
	}
	id := r.field(t, ".data.approval.id").(string)
	screen, wtitle := onScreen(t, dir, nil, nil, "N", "approval", "accept", id)
	mustShow(t, "diff on the confirmation screen", screen,
		`+total: 10\x1b[1A\x1b[2K\rtotal: 0\x1b]0;owned\a`, `+\x1b[31mred\x1b[0m`, `invoice\u202etxt.exe`)
	if wtitle != "" {
		t.Fatalf("the diff set the window title to %q", wtitle)
	}
	screen, _ = onScreen(t, dir, nil, nil, "", "edit", "show", r.field(t, ".data.transactionId").(string))
	mustShow(t, "edit show", screen, `invoice\u202etxt.exe`, `\x1b[31mred`)

	writeFile(t, filepath.Join(dir, "shown.txt"), content)
	screen, wtitle = onScreen(t, dir, nil, nil, "", "inspect", "read", "shown.txt")
	mustShow(t, "inspect read", screen, `total: 10\x1b[1A\x1b[2K\rtotal: 0`)
	if wtitle != "" {
		t.Fatalf("inspect read set the window title to %q", wtitle)
	}
}

func mustShow(t *testing.T, what, screen string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(screen, w) {
			t.Fatalf("%s: the screen does not show %q:\n%s", what, w, screen)
		}
	}
}
