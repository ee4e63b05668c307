package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTestArgv(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"   \t", nil, ""},
		{"go test ./...", []string{"go", "test", "./..."}, ""},
		{`pytest -k "not slow" 'tests dir'`, []string{"pytest", "-k", "not slow", "tests dir"}, ""},
		{`npm test -- --grep "$HOME"`, []string{"npm", "test", "--", "--grep", "$HOME"}, ""},
		{"go test ./... && rm -rf /", nil, `"&&" is a shell operator`},
		{"go test ./... | tee log", nil, `"|" is a shell operator`},
		{"go test ./... > log", nil, `">" is a shell operator`},
		{"go test $(pwd)", nil, "shell operator"},
		{"go test 'unclosed", nil, "'"},
		{"go test \x00", nil, "NUL"},
	} {
		got, err := TestArgv(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "\x01") != strings.Join(tc.want, "\x01") || len(got) != len(tc.want) {
			t.Errorf("%q: %q %v, want %q", tc.line, got, err, tc.want)
		}
	}
}

func TestValidateTestCommand(t *testing.T) {
	s := Defaults()
	s.Commands.TestCommand = "go test ./..."
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	s.Commands.TestCommand = "go test; curl x"
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "commands.testCommand") {
		t.Fatalf("a shell line must be refused naming the key: %v", err)
	}
}

func TestDetectTestCommands(t *testing.T) {
	for _, tc := range []struct {
		files map[string]string
		want  string // commands, in order, joined by |
	}{
		{map[string]string{}, ""},
		{map[string]string{"go.mod": "module m\n"}, "go test ./..."},
		{map[string]string{"package.json": `{"scripts": {"test": "jest"}}`}, "npm test"},
		{map[string]string{"package.json": `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}`}, ""},
		{map[string]string{"package.json": `{"scripts": {"build": "tsc"}}`}, ""},
		{map[string]string{"package.json": `{"scripts": {"test": "  "}}`}, ""},
		{map[string]string{"package.json": `not json`}, ""},
		{map[string]string{"Cargo.toml": "[package]\n"}, "cargo test"},
		{map[string]string{"pytest.ini": "[pytest]\n"}, "pytest"},
		{map[string]string{"tox.ini": "[tox]\n"}, "pytest"},
		{map[string]string{"setup.cfg": "[metadata]\n", "pyproject.toml": "[project]\n"}, "pytest"},
		{map[string]string{"Makefile": "test:\n\tgo test ./...\n"}, "make test"},
		{map[string]string{"Makefile": "all test: build\n"}, "make test"},
		{map[string]string{"Makefile": "test::\n\ttrue\n"}, "make test"},
		{map[string]string{"Makefile": ".PHONY: test\nbuild:\n\tcc\n"}, ""},
		{map[string]string{"Makefile": "test := 1\ntest ?= 2\ntest ::= 3\n"}, ""},
		{map[string]string{"Makefile": "# test: not a rule\n\ttest: in a recipe\nunittest: x\n"}, ""},
		{map[string]string{"Makefile": "test:\n", "go.mod": "module m\n", "package.json": `{"scripts": {"test": "vitest"}}`}, "go test ./...|npm test|make test"},
	} {
		dir := t.TempDir()
		for p, c := range tc.files {
			os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
		}
		var got []string
		for _, c := range DetectTestCommands(dir) {
			if c.Reason == "" || tc.files[c.File] == "" {
				t.Errorf("%v: %s has no reason or names no file of the project (%q)", tc.files, c.Command, c.File)
			}
			got = append(got, c.Command)
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("%v: detected %q, want %q", tc.files, got, tc.want)
		}
	}
	// A directory named like a project file is not one.
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "go.mod"), 0o755)
	if got := DetectTestCommands(dir); len(got) != 0 {
		t.Errorf("a go.mod directory: %v", got)
	}
}

func TestPackageTestScript(t *testing.T) {
	dir := t.TempDir()
	if got := PackageTestScript(dir); got != "" {
		t.Fatalf("no package.json: %q", got)
	}
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts": {"test": " node --test "}}`), 0o644)
	if got := PackageTestScript(dir); got != "node --test" {
		t.Fatalf("test script: %q", got)
	}
}
