package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// TestTablesFitTheTerminal: on an 80-column terminal no line aw prints is
// wider than the screen, for the views with the widest data, on a real
// repository with long names; the overview draws its files as a tree.
func TestTablesFitTheTerminal(t *testing.T) {
	dir := vcsRepo(t, `{"permissionMode": 0, "commands": {"allow": ["echo"]}}`)
	long := strings.Repeat("a-very-long-directory-name-", 4)
	write(t, dir, long+"/"+strings.Repeat("file-with-a-long-name-", 3)+".txt", "needle "+strings.Repeat("wide text ", 30)+"\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "a commit whose subject is long enough to reach well past eighty columns on any screen")
	write(t, dir, "a.txt", "changed "+strings.Repeat("x", 200)+"\n")
	write(t, dir, "宽字符/"+strings.Repeat("很长的文件名", 12)+".txt", "needle 宽 "+strings.Repeat("全角文字", 30)+"\n")
	write(t, dir, "tabs.go", "package x\n\nfunc f() {\n\t\t\t\t\t\t\t\treturn "+strings.Repeat("y", 60)+"\n}\n")
	staged := runAW(t, dir, nil, "command", "run", "--", "echo", strings.Repeat("staged-argument ", 12)) // a pending approval
	approval := staged.field(t, ".data.approval.id").(string)
	created := runAW(t, dir, nil, "tasks", "create", strings.Repeat("A board whose title is long ", 4),
		"--item", strings.Repeat("an item whose text runs on and on ", 5),
		"--item", `{"text":"tag the release","priority":"high","depends_on":["1"],"details":"first line\nsecond line, `+strings.Repeat("long ", 30)+`"}`,
		"--item", `{"text":"publish","priority":"low","depends_on":["1","2"]}`,
		"--item", strings.Repeat("全角の長いテキスト", 10))
	board := created.field(t, ".data.board.id").(string)
	runAW(t, dir, nil, "tasks", "note", board, strings.Repeat("a note that is long ", 8))
	for _, args := range [][]string{
		{"inspect", "overview"},
		{"inspect", "list", "."},
		{"inspect", "search", "needle"},
		{"inspect", "read", "a.txt"},
		{"inspect", "read", "tabs.go"},
		{"tasks", "show", board},
		{"approval", "list"},
		{"approval", "show", approval},
		{"vcs", "log"},
		{"vcs", "status"},
		{"vcs", "diff"},
		{"config", "list"},
	} {
		lines := screenLines(onPty(t, 80, dir, gitEnv, nil, "", args...))
		if len(lines) < 2 {
			t.Errorf("aw %s printed almost nothing: %q", strings.Join(args, " "), lines)
		}
		for _, l := range lines {
			if w := runewidth.StringWidth(l); w > 80 {
				t.Errorf("aw %s: a line of %d columns on an 80-column terminal:\n%s", strings.Join(args, " "), w, l)
				break
			}
		}
	}

	// The overview's files as tree(1) draws them: the long directory's
	// file under it, the last entry of a level closed with └──.
	text := strings.Join(screenLines(onPty(t, 80, dir, gitEnv, nil, "", "inspect", "overview")), "\n")
	for _, want := range []string{
		"\n.\n├── ",
		"\n├── " + long[:40],
		"\n│   └── file-with-a-long-name-",
		"\n├── src/\n│   ├── .gitignore\n│   └── lib/\n",
		"\n├── tabs.go\n└── 宽字符/\n    └── 很长的文件名",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the overview's tree lacks %q:\n%s", want, text)
		}
	}
	// tasks show: one row per item, its dependencies by position.
	text = strings.Join(screenLines(onPty(t, 80, dir, gitEnv, nil, "", "tasks", "show", board)), "\n")
	want := []string{"STATUS", "PRIORITY", "AFTER", "pending  high", "#1 #2", "first line\n", "second line"}
	for _, id := range created.field(t, ".data.added").([]any) {
		want = append(want, "  "+id.(string)+"  ") // whole: it is what tasks update takes
	}
	for _, want := range want {
		if !strings.Contains(text, want) {
			t.Errorf("tasks show lacks %q:\n%s", want, text)
		}
	}
	// A checkpoint's snapshot is shown the same way.
	cp := runAW(t, dir, nil, "tasks", "checkpoint", board).field(t, ".data.checkpoint.id").(string)
	text = strings.Join(screenLines(onPty(t, 80, dir, gitEnv, nil, "", "tasks", "show", board, "--checkpoint", cp)), "\n")
	for _, want := range append(want[len(want)-4:], "checkpoint:  "+cp) {
		if !strings.Contains(text, want) {
			t.Errorf("tasks show --checkpoint lacks %q:\n%s", want, text)
		}
	}
	// approval show: the record's fields one per line, then the command.
	text = strings.Join(screenLines(onPty(t, 80, dir, gitEnv, nil, "", "approval", "show", approval)), "\n")
	for _, want := range []string{"\nid:          " + approval, "\nstatus:      pending", "\nkind:        command", " (in 23h)", "\n$ echo 'staged-argument"} {
		if !strings.Contains(text, want) {
			t.Errorf("approval show lacks %q:\n%s", want, text)
		}
	}
}

// screenLines is a terminal's output as the lines a human sees on a wide
// enough screen: colors dropped, tabs expanded to the next multiple of 8.
func screenLines(raw []byte) []string {
	text := ansi.ReplaceAllString(strings.ReplaceAll(string(raw), "\r\n", "\n"), "")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		var b strings.Builder
		for _, r := range l {
			if r == '\t' {
				b.WriteString(strings.Repeat(" ", 8-runewidth.StringWidth(b.String())%8))
				continue
			}
			b.WriteRune(r)
		}
		lines[i] = b.String()
	}
	return lines
}

// ansi matches the color sequences aw writes (and a pager's set-up).
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[a-zA-Z]|\x1b[=>]`)

// TestPager: table output longer than the terminal goes through $PAGER;
// short output, --no-pager and output that is not a terminal do not.
func TestPager(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 90; i++ {
		write(t, dir, fmt.Sprintf("f%02d.txt", i), "x\n")
	}
	pager := filepath.Join(t.TempDir(), "pager")
	if err := os.WriteFile(pager, []byte("#!/bin/sh\necho PAGED-BY-TEST\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PAGER=" + pager}
	if out := string(onPty(t, 100, dir, env, nil, "", "inspect", "list", ".")); !strings.Contains(out, "PAGED-BY-TEST") || !strings.Contains(out, "f89.txt") {
		t.Errorf("a long listing was not paged:\n%s", out)
	}
	if out := string(onPty(t, 100, dir, env, nil, "", "inspect", "list", ".", "--no-pager")); strings.Contains(out, "PAGED-BY-TEST") || !strings.Contains(out, "f89.txt") {
		t.Errorf("--no-pager paged:\n%s", out)
	}
	if out := string(onPty(t, 100, dir, env, nil, "", "inspect", "stat", "f01.txt")); strings.Contains(out, "PAGED-BY-TEST") {
		t.Errorf("a short result was paged:\n%s", out)
	}
	if r := runAWEnv(t, dir, nil, env, "inspect", "list", "."); strings.Contains(string(r.Stdout), "PAGED-BY-TEST") {
		t.Error("output to a pipe was paged")
	}
}

// TestColor: diffs are colored on a terminal, never with NO_COLOR, with
// --color never or off a terminal, and always with --color always; JSON
// is never colored.
func TestColor(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", "one\ntwo\n")
	pre := runAW(t, dir, nil, "edit", "preview", "--op", `{"type":"replace","path":"a.txt","search":"two","replacement":"2"}`)
	tx := pre.field(t, ".data.transactionId").(string)
	green := "\x1b[32m+2"
	if out := string(onPty(t, 120, dir, []string{"NO_COLOR="}, nil, "", "edit", "show", tx)); !strings.Contains(out, green) || !strings.Contains(out, "\x1b[31m-two") {
		t.Errorf("no colored diff on a terminal:\n%q", out)
	}
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, nil}, // the pty tests' NO_COLOR=1
		{[]string{"NO_COLOR="}, []string{"--color", "never"}},
	} {
		if out := string(onPty(t, 120, dir, c.env, nil, "", append([]string{"edit", "show", tx}, c.args...)...)); strings.Contains(out, "\x1b[3") {
			t.Errorf("%v %v: colored:\n%q", c.env, c.args, out)
		}
	}
	if out := runRaw(t, dir, "edit", "show", tx, "-o", "table", "--color", "always"); !strings.Contains(out, green) {
		t.Errorf("--color always off a terminal: %q", out)
	}
	if out := runRaw(t, dir, "edit", "show", tx, "-o", "table"); strings.Contains(out, "\x1b") {
		t.Errorf("colored off a terminal: %q", out)
	}
	if r := runAW(t, dir, nil, "edit", "show", tx, "--color", "always"); strings.Contains(string(r.Stdout), "\x1b") {
		t.Errorf("JSON colored: %q", r.Stdout)
	}
	if r := runAW(t, dir, nil, "edit", "show", tx, "--color", "rainbow"); r.Code != 2 {
		t.Errorf("--color rainbow: exit %d", r.Code)
	}
}

// TestSearchHighlight: inspect search paints the match itself, as
// ripgrep does, whether the pattern was read as a regular expression, a
// literal or without case; only with color on, never with NO_COLOR or
// off a terminal; and the text around it is made visible first.
func TestSearchHighlight(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", "one needle here\nNeedle again, needle twice\n")
	write(t, dir, "b.txt", "price a.b and aXb\n")
	write(t, dir, "c.txt", "needle \x1b[2K\rfake\n")
	hit := func(s string) string { return "\x1b[1;31m" + s + "\x1b[0m" }
	always := []string{"NO_COLOR="}
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"needle"}, []string{"one " + hit("needle") + " here", "Needle again, " + hit("needle") + " twice"}, nil},
		{[]string{"-i", "NEEDLE", "--glob", "a.txt"}, []string{hit("Needle") + " again, " + hit("needle") + " twice"}, nil},
		{[]string{"--fixed", "a.b"}, []string{"price " + hit("a.b") + " and aXb"}, []string{hit("aXb")}},
		{[]string{"ne+dle", "--glob", "a.txt"}, []string{"one " + hit("needle")}, nil},
		{[]string{"needle", "--glob", "c.txt"}, []string{hit("needle") + ` \x1b[2K\rfake`}, nil},
	} {
		out := string(onPty(t, 100, dir, always, nil, "", append([]string{"inspect", "search"}, c.args...)...))
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("search %v: no %q in\n%q", c.args, w, out)
			}
		}
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("search %v: %q painted in\n%q", c.args, n, out)
			}
		}
		if raw := ansi.ReplaceAllString(out, ""); strings.Contains(raw, "\x1b") || strings.Contains(raw, "\r\x1b") {
			t.Errorf("search %v: a raw escape reached the terminal: %q", c.args, out)
		}
	}
	if out := string(onPty(t, 100, dir, nil, nil, "", "inspect", "search", "needle")); strings.Contains(out, "\x1b[1;31m") {
		t.Errorf("highlighted with NO_COLOR: %q", out)
	}
	if out := runRaw(t, dir, "inspect", "search", "needle", "-o", "table"); strings.Contains(out, "\x1b[") {
		t.Errorf("highlighted off a terminal: %q", out)
	}
	if out := runRaw(t, dir, "inspect", "search", "needle", "-o", "table", "--color", "always"); !strings.Contains(out, hit("needle")) {
		t.Errorf("--color always off a terminal: %q", out)
	}
	// A match past the screen's edge: the start of the line gives way.
	write(t, dir, "d.txt", strings.Repeat("x", 150)+" far-needle end\n")
	out := string(onPty(t, 80, dir, always, nil, "", "inspect", "search", "far-needle"))
	if !strings.Contains(out, "…") || !strings.Contains(out, hit("far-needle")) {
		t.Errorf("a match past the edge is not shown: %q", out)
	}
}

// TestCommandRunStreams: on a terminal, command run shows the command's
// output as it runs (its first line is on the screen while it still
// waits for a file the test creates), then the envelope; with -o json
// nothing but the envelope is written.
func TestCommandRunStreams(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".agentic", "config.json"), `{"permissionMode": 2, "commands": {"allow": ["sh"]}}`)
	script := `printf '%s-%s\n' first line; printf '\033[2Kraw\n'; while [ ! -e release ]; do sleep 0.05; done; printf '%s-%s\n' second line`
	p := startPty(t, 80, dir, nil, nil, false, "command", "run", "--", "sh", "-c", script)
	p.waitFor("first-line")
	if strings.Contains(string(p.seen()), "second-line") {
		t.Fatal("the command went on before the file existed")
	}
	write(t, dir, "release", "")
	out := string(p.wait())
	for _, want := range []string{"first-line\r\n", `\x1b[2Kraw`, "second-line", "exited 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Count(out, "first-line") != 1 {
		t.Errorf("the output was shown again after it streamed:\n%s", out)
	}
	if i, j := strings.Index(out, "second-line"), strings.Index(out, "exited 0"); i > j {
		t.Errorf("the envelope came before the end of the output:\n%s", out)
	}
	out = string(onPty(t, 80, dir, nil, nil, "", "command", "run", "-o", "json", "--", "sh", "-c", script))
	if !strings.HasPrefix(out, `{"protocol"`) || strings.Contains(out, "first-line\r\n") {
		t.Errorf("-o json on a terminal streamed:\n%s", out)
	}
}

// TestViewsShowControlsVisibly: control characters in what the agent's
// side wrote (a file name in the tree and the listing, a task's text,
// details and note, a command's output in the stream, in status and in
// output) reach the terminal as escapes, with color on or off: nothing
// but aw's own colors is an escape sequence.
func TestViewsShowControlsVisibly(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".agentic", "config.json"), `{"permissionMode": 2, "commands": {"allow": ["printf"]}}`)
	const evil = "\x1b[2K\r\x1b]0;owned\x07\b\u202e"
	write(t, dir, "src/name"+evil+".txt", "x\n")
	item, _ := json.Marshal(map[string]string{"text": "t" + evil, "details": "d" + evil})
	board := runAW(t, dir, nil, "tasks", "create", "b"+evil, "--item", string(item)).field(t, ".data.board.id").(string)
	runAW(t, dir, nil, "tasks", "note", board, "n"+evil)
	job := runAW(t, dir, nil, "command", "run", "--", "printf", `out\033[2K\r\033]0;owned\007\n`).field(t, ".data.jobId").(string)
	for _, env := range [][]string{nil, {"NO_COLOR="}} {
		for _, args := range [][]string{
			{"inspect", "overview"},
			{"inspect", "list", "."},
			{"tasks", "show", board},
			{"command", "status", job, "--tail-chars", "100"},
			{"command", "output", job},
			{"command", "run", "--", "printf", `live\033[2K\r\033]0;owned\007\n`},
		} {
			out := string(onPty(t, 80, dir, env, nil, "", args...))
			rest := strings.ReplaceAll(ansi.ReplaceAllString(out, ""), "\r\n", "\n")
			if strings.ContainsAny(rest, "\x1b\r\x07\b\u202e") {
				t.Errorf("%v %s: a raw control reached the terminal:\n%q", env, strings.Join(args, " "), out)
			}
			if !strings.Contains(out, `\x1b[2K\r`) && !strings.Contains(out, `\x1b[2K\r\x1b]0;owned\a`) {
				t.Errorf("%v %s: the controls are not shown:\n%q", env, strings.Join(args, " "), out)
			}
		}
	}
}
