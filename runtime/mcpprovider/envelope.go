package mcpprovider

import "github.com/gnosis/gnosis/runtime/rawjson"

// envelope is the top level of one JSON-RPC message: the raw bytes of the
// members a transport routes on. The bytes alias the scanned line.
type envelope struct {
	id, method, result, err, params []byte
}

// scanEnvelope validates line as exactly one JSON object and returns its
// routing members. It is the whole of the transport's parsing: one pass, and
// strings, where multi-megabyte results spend their bytes, are skimmed
// without decoding (package rawjson).
func scanEnvelope(line []byte) (envelope, bool) {
	var env envelope
	ok := rawjson.Object(line, func(key, val []byte) {
		switch string(key) {
		case "id":
			env.id = val
		case "method":
			env.method = val
		case "result":
			env.result = val
		case "error":
			env.err = val
		case "params":
			env.params = val
		}
	})
	return env, ok
}
