package dispatch

func notesActions() []*Action { return nil }
