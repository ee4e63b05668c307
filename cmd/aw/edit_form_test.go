package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// readText is the content of `aw inspect read` without the line-number
// gutter: what an agent copies into a replace.
func readText(t *testing.T, r Result) string {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.SplitAfter(r.field(t, ".data.content").(string), "\n") {
		if _, text, ok := strings.Cut(l, "\t"); ok {
			b.WriteString(text)
		}
	}
	return b.String()
}

// TestEditKeepsFileForm: text copied from a read of a CRLF file, a file
// with a byte order mark, or one without a final newline matches in a
// replace, and every edit keeps the file's own form.
func TestEditKeepsFileForm(t *testing.T) {
	dir := autoWorkspace(t, "")
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	apply := func(op string) Result {
		t.Helper()
		r := runAW(t, dir, nil, "edit", "apply", "--op", op)
		if r.Code != 0 {
			t.Fatalf("apply %s: %s", op, r.Stdout)
		}
		return r
	}
	write("crlf.txt", "one\r\ntwo\r\nthree\r\n")
	write("mixed.txt", "a\r\nb\nc\nd\r\n")
	write("bom.txt", "\ufeffbom\nline\n")
	write("open.txt", "x\r\ny\r\nz")
	for _, c := range []struct {
		file, ending string
		bom, open    bool
		text         string
	}{
		{"crlf.txt", "crlf", false, false, "one\ntwo\nthree\n"},
		{"mixed.txt", "mixed", false, false, "a\nb\nc\nd\n"},
		{"bom.txt", "lf", true, false, "bom\nline\n"},
		{"open.txt", "crlf", false, true, "x\ny\nz"},
	} {
		r := runAW(t, dir, nil, "inspect", "read", c.file)
		if got := r.field(t, ".data.lineEnding"); got != c.ending {
			t.Errorf("%s: lineEnding %v, want %s", c.file, got, c.ending)
		}
		if _, has := r.Env["data"].(map[string]any)["bom"]; has != c.bom {
			t.Errorf("%s: bom reported %v, want %v", c.file, has, c.bom)
		}
		if _, has := r.Env["data"].(map[string]any)["noFinalNewline"]; has != c.open {
			t.Errorf("%s: noFinalNewline reported %v, want %v", c.file, has, c.open)
		}
		if got := readText(t, r); got != c.text {
			t.Errorf("%s: read shows %q, want %q", c.file, got, c.text)
		}
	}

	// A search copied from the read (no CRs) matches; the replacement is
	// written with CR LF.
	apply(`{"type":"replace","path":"crlf.txt","search":"two\nthree","replacement":"2\n3\n3.5"}`)
	if got := file("crlf.txt"); got != "one\r\n2\r\n3\r\n3.5\r\n" {
		t.Errorf("crlf.txt after replace: %q", got)
	}
	// Splice and rewrite keep CR LF too.
	apply(`{"type":"splice","path":"crlf.txt","start_line":2,"delete_count":1,"content":"two\n"}`)
	if got := file("crlf.txt"); got != "one\r\ntwo\r\n3\r\n3.5\r\n" {
		t.Errorf("crlf.txt after splice: %q", got)
	}
	apply(`{"type":"rewrite","path":"crlf.txt","content":"new\nwhole\n"}`)
	if got := file("crlf.txt"); got != "new\r\nwhole\r\n" {
		t.Errorf("crlf.txt after rewrite: %q", got)
	}
	// In a mixed file each replaced span keeps its own endings; nothing
	// else is normalized.
	apply(`{"type":"replace","path":"mixed.txt","search":"b\nc","replacement":"B\nC"}`)
	apply(`{"type":"replace","path":"mixed.txt","search":"a\nB","replacement":"A\nB2"}`)
	if got := file("mixed.txt"); got != "A\r\nB2\nC\nd\r\n" {
		t.Errorf("mixed.txt after replaces: %q", got)
	}
	// The byte order mark stays first through a rewrite and a splice of
	// line 1, and is never counted as text.
	apply(`{"type":"splice","path":"bom.txt","start_line":1,"delete_count":0,"content":"first\n"}`)
	if got := file("bom.txt"); got != "\ufefffirst\nbom\nline\n" {
		t.Errorf("bom.txt after splice: %q", got)
	}
	apply(`{"type":"rewrite","path":"bom.txt","content":"only\n"}`)
	if got := file("bom.txt"); got != "\ufeffonly\n" {
		t.Errorf("bom.txt after rewrite: %q", got)
	}
	// No final newline: the last line stays open.
	apply(`{"type":"replace","path":"open.txt","search":"y\nz","replacement":"Y\nZ"}`)
	if got := file("open.txt"); got != "x\r\nY\r\nZ" {
		t.Errorf("open.txt after replace: %q", got)
	}

	// replace_all replaces every occurrence and reports how many.
	write("many.txt", "k=1\nk=2\nk=3\n")
	r := apply(`{"type":"replace","path":"many.txt","search":"k=","replacement":"key=","replace_all":true}`)
	if got := r.field(t, ".data.replacements.0.count"); got != 3.0 {
		t.Errorf("replacements count %v, want 3", got)
	}
	if got := file("many.txt"); got != "key=1\nkey=2\nkey=3\n" {
		t.Errorf("many.txt: %q", got)
	}
	for op, reason := range map[string]string{
		`{"type":"replace","path":"many.txt","search":"key=","replacement":"k="}`:                                                 "not-unique",
		`{"type":"replace","path":"many.txt","search":"absent","replacement":"x"}`:                                                "no-match",
		`{"type":"create","path":"many.txt","content":"x"}`:                                                                       "target-exists",
		`{"type":"replace","path":"many.txt","search":"key","replacement":"x","expect_sha256":"` + strings.Repeat("0", 64) + `"}`: "stale",
	} {
		r := runAW(t, dir, nil, "edit", "apply", "--op", op)
		if r.Code != 1 || r.field(t, ".error.code") != "EDIT_CONFLICT" || r.field(t, ".error.details.reason") != reason {
			t.Errorf("%s: exit %d, want EDIT_CONFLICT with reason %s: %s", op, r.Code, reason, r.Stdout)
		}
	}
	r = runAW(t, dir, nil, "edit", "apply", "--op", `{"type":"replace","path":"many.txt","search":"key","replacement":"x","replace_all":true,"expected_matches":3}`)
	if r.Code == 0 || r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Errorf("replace_all with expected_matches: %s", r.Stdout)
	}
}

// TestEditParallelAppliesLand: twelve applies at once, each replacing its
// own line of one file without expect_sha256, all land; one pinned to a
// stale hash still fails stale with the current hash; commit TX writes
// exactly what was previewed or fails stale.
func TestEditParallelAppliesLand(t *testing.T) {
	dir := autoWorkspace(t, "")
	const n = 12
	var lines strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&lines, "line %02d = old\n", i)
	}
	path := filepath.Join(dir, "shared.txt")
	if err := os.WriteFile(path, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runAW(t, dir, nil, "inspect", "read", "shared.txt")
	firstHash := r.field(t, ".data.sha256").(string)
	results := make([]Result, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = runAW(t, dir, nil, "edit", "apply", "--op",
				fmt.Sprintf(`{"type":"replace","path":"shared.txt","search":"line %02d = old","replacement":"line %02d = new"}`, i, i))
		}(i)
	}
	wg.Wait()
	for i, r := range results {
		if r.Code != 0 {
			t.Errorf("apply %d: exit %d: %s", i, r.Code, r.Stdout)
		}
	}
	got, _ := os.ReadFile(path)
	if want := strings.ReplaceAll(lines.String(), "old", "new"); string(got) != want {
		t.Fatalf("after %d parallel applies:\n%s\nwant\n%s", n, got, want)
	}

	// Pinned to the hash of a read that is now stale: EDIT_CONFLICT stale,
	// with the file's current hash.
	r = runAW(t, dir, nil, "edit", "apply", "--op",
		`{"type":"replace","path":"shared.txt","search":"line 00 = new","replacement":"x","expect_sha256":"`+firstHash+`"}`)
	if r.Code != 1 || r.field(t, ".error.details.reason") != "stale" || r.field(t, ".error.details.sha256") != sha256Hex(got) {
		t.Errorf("stale expect_sha256: %s", r.Stdout)
	}
	// A previewed transaction is written exactly or not at all.
	pv := runAW(t, dir, nil, "edit", "preview", "--op", `{"type":"replace","path":"shared.txt","search":"line 01 = new","replacement":"line 01 = previewed"}`)
	tx := pv.field(t, ".data.transactionId").(string)
	os.WriteFile(path, append(got, "appended\n"...), 0o644)
	r = runAW(t, dir, nil, "edit", "commit", tx)
	if r.Code != 1 || r.field(t, ".error.details.reason") != "stale" {
		t.Errorf("commit of a transaction whose file changed: %s", r.Stdout)
	}
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
