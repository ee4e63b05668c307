package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// TestBashCompletionWithoutBashCompletion: the script `aw completion bash`
// prints completes verbs, flags and enum flag values in a bash that
// has not loaded the bash-completion package (bash --norc).
func TestBashCompletionWithoutBashCompletion(t *testing.T) {
	bash := testenv.Need(t, "bash", "apt-get install bash")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(awBin, filepath.Join(bin, "aw")); err != nil {
		t.Fatal(err)
	}
	complete := func(line string) []string {
		t.Helper()
		script := `source <(aw completion bash) || exit 9
declare -F _init_completion >/dev/null && { echo "bash-completion is loaded"; exit 8; }
COMP_LINE=$1; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$COMP_LINE"; COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
__start_aw 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script, "bash", line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "AW_ROOT=", "XDG_CONFIG_HOME="+filepath.Join(dir, ".none"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("completing %q: %v\n%s", line, err, out)
		}
		return strings.Fields(string(out))
	}
	for line, want := range map[string]string{
		"aw insp":                 "inspect",
		"aw --color al":           "always",
		"aw inspect read --max-b": "--max-bytes",
	} {
		if got := complete(line); len(got) != 1 || got[0] != want {
			t.Errorf("completing %q gave %q, want [%s]", line, got, want)
		}
	}
}
