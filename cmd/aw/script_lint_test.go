package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// errorCheck is a line that says which failure a `! exec aw` expects: the
// envelope's error code, (exit 3) the staged approval, or a --jq
// expression that failed on the result (no envelope is printed then).
var errorCheck = regexp.MustCompile(`^(jq \.error\.code [A-Z_]+|jq \.data\.status pending_approval|(stdout|stderr) .*\b[A-Z]+_[A-Z_]+\b|stderr 'aw: --jq: )`)

// TestScriptsCheckErrorCodes: in every script, a command expected to fail
// is followed (before the next command) by a check of what failed, so a
// refusal cannot turn into a different failure unnoticed.
func TestScriptsCheckErrorCodes(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no scripts")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(raw), "\n")
		for i, line := range lines {
			if strings.HasPrefix(line, "-- ") {
				break // the archive's files
			}
			if !strings.HasPrefix(line, "! exec aw ") && !strings.HasPrefix(line, "! exec sh run.sh ") {
				continue
			}
			checked := false
			for _, next := range lines[i+1:] {
				next = strings.TrimSpace(next)
				if strings.HasPrefix(next, "exec ") || strings.HasPrefix(next, "! exec ") || strings.HasPrefix(next, "-- ") {
					break
				}
				if errorCheck.MatchString(next) {
					checked = true
					break
				}
			}
			if !checked {
				t.Errorf("%s:%d: %s: no check of the error code (jq .error.code CODE) before the next command", f, i+1, line)
			}
		}
	}
}
