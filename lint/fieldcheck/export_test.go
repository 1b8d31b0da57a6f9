package fieldcheck

// The JSON path of decodeStrict, for the differential tests.
var DecodeJSON = decodeJSON

// PrintedIn is a pod template as its object prints it.
var PrintedIn = printedIn
