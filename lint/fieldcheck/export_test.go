package fieldcheck

// The JSON path of decodeStrict, for the differential tests.
var DecodeJSON = decodeJSON
