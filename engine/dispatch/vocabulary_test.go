package dispatch

import "testing"

// What the dispatch layer renames on its own (the command line adds the
// flags spelled otherwise than their arguments): flags spelled like an
// argument, metavariables naming one, never inside backquotes, never a
// name the action does not have.
func TestToArguments(t *testing.T) {
	row, err := Find("inspect", "read")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"raise --max-bytes or --limit":                 "raise max_bytes or limit",
		"(--max-bytes 5)":                              "(max_bytes 5)",
		"--nope and --tier read stay":                  "--nope and --tier read stay",
		"PATH is a directory; PATHS and README.md too": "path is a directory; PATHS and README.md too",
		"run `aw inspect read PATH --max-bytes 9` now": "run `aw inspect read PATH --max-bytes 9` now",
		"a--max-bytes x/PATH":                          "a--max-bytes x/PATH",
		"Read lines.txt lines 1-200 of 200":            "Read lines.txt lines 1-200 of 200",
	} {
		if got := row.toArguments(in); got != want {
			t.Errorf("toArguments(%q) = %q, want %q", in, got, want)
		}
	}
}
