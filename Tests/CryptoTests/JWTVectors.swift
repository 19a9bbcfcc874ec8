import Crypto
import Testing

/// Test-only keys and tokens made with Python's `cryptography` and PyJWT (an independent
/// implementation), so these tests check our JWS bytes against someone else's, not against
/// themselves. The keys protect nothing.
enum JWTVectors {
    static let rsaPrivate = """
-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCRY5E4nfxCvvsv
ExEfWBAeUSl+Ond5EH0Q6flH5y4qrd9BaNaXFOaHUgsge26h+fgIuRY7Ks+an/Wz
u03YGODNijKjUfIVq1c4/XaAuJ/mInGblpPMIbugIPWQAMimbYC3kV9ClUURd4gE
DJKB6NtKaw6qdL2If3461BLdk1P5PbiQSybCKmi0TW/WgF+s+p4fPtwFmaTLGOu9
4LSkkfEdMifh0HbhbFjeezYNhg6gMhwChnd0wUq/4nikG3IvoQrRtfhjprdQk9mo
jdY6e1mstbG7B4cp5tx6Wq4bbjBFMc/9ORno/4xX1c/uSc2yi8m8MKgXpMrPjyUu
qYKejJTBAgMBAAECggEADVQLZB1XmubXMCGXWEBCegUGwMOrYDXawUoxyB2xZcg6
x0xNH9ySpaUnz/qA0eiQjHwrRZFPJuWzKJ7rK/xb33vj2IUSpFnozRivXG2QexB9
Sb4sHnKZOLzMxj7MJjWzryBskzYL9uX2Wiis5avrLo9R8N5y4aiOceYvNJDlCdwz
QS42xp9kZ4nFrCdIX9Oh4lUYg1NoMmSac2xg/UAt3muvqvx7IFyUIikmyxKObZMQ
2lf03g4FGsaMUCl9a+VbJSnPfXiVv3fYgxY9KbD9OTjv7NvLa9iBTgl206ovFLLa
NpUSyi+0rRBFSbX2GcKqRU72wcquFq0O3y+DvFRrYQKBgQDIgxDh+zoYisI5MZ9M
0deKq/Cl7pKYNTpaBlWcktwsGhpHcnYdAAUbHiGESo2RV9ZuDIDUEZxF7YlKmxp+
V9Kp6DA9D4DNaZpVqMlEGpoGdj3JQ4RdCgyOdFMMO/msFgppALXDZ1Pv1pnT9Efs
g5wXt/qRr4Sknyz7GkfK9aSdMwKBgQC5n2bs9xSoftdZKUUZXuLq+Pk2Em3YLw9z
CWd0YL5/35NbNToMS23eBKROYskLFSmjKc0WAd8BCcGHDzuvx1Ncttx1I2Yz3uVn
lMj92F/WW1yWv/YHXr9/LBcbAddBFCRheJ+SiGGwadgBr+XvgxnK5tfU7QHQ6Vi5
aKXEyk4+OwKBgQCgJD25nqJ5s2kHsOAfxIC3Wjeq7u3Z7rkZ6XE6yfhaqMZQRdSb
uMZbMCdotvp2GIdEAWxq812yY9KA6XuxaIbx+GV+fwFKDYub2mBUqkJV4t3Z/ria
bko1BCbH4Ka5kCjkUBLba40YQnc9Vx6SgVKLhv7ymBICQLb2Hbk1GhdNDQKBgBjG
QKuB8rzmaQGac4GGW4z2+/QOk6CV717wM2GiA+r3QSicOwonCxvlzLQ1lRWolm0T
iC7WwxfVYIIRM2srlGG8ekIcHmjv5/hiME1JEsl+WiY4qrKjH7XugYr2PO+Pq6di
vRGGqFsuVUksW+kSu1+MXeQqWeKzMkdUw0M3qSe/AoGAcYNc6+HFVN1RCnei0N9V
tH8tdezc2hAcR36ggfCj/meb1NMtq/043Ns0he+YvCTioRc1kQUm36opEcCPydu7
mew7vAOSXMgS1jnQ02tsgLGozMzM6EXattLZpasruv7f5sux77ducdNcjcoKwrEH
GT/Ycnyu9MLG5aul5o3dhSA=
-----END PRIVATE KEY-----
"""
    static let rsaPublic = """
-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAkWOROJ38Qr77LxMRH1gQ
HlEpfjp3eRB9EOn5R+cuKq3fQWjWlxTmh1ILIHtuofn4CLkWOyrPmp/1s7tN2Bjg
zYoyo1HyFatXOP12gLif5iJxm5aTzCG7oCD1kADIpm2At5FfQpVFEXeIBAySgejb
SmsOqnS9iH9+OtQS3ZNT+T24kEsmwipotE1v1oBfrPqeHz7cBZmkyxjrveC0pJHx
HTIn4dB24WxY3ns2DYYOoDIcAoZ3dMFKv+J4pBtyL6EK0bX4Y6a3UJPZqI3WOntZ
rLWxuweHKebcelquG24wRTHP/TkZ6P+MV9XP7knNsovJvDCoF6TKz48lLqmCnoyU
wQIDAQAB
-----END PUBLIC KEY-----
"""
    static let ecPrivate = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWHbtjNjBAxXqj54v
jXfGwtF9h9kDM7LzcCjws6Bs3QmhRANCAARkyYxoasO9nfDoGrJ7m5r7aCZ9bJ+V
AFuu2zYjyEUqkRcWqbBvATw3BGkZ9tKtCGxyMcnmb8I0Lfv7O3D4+FcI
-----END PRIVATE KEY-----
"""
    static let ecPublic = """
-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEZMmMaGrDvZ3w6Bqye5ua+2gmfWyf
lQBbrts2I8hFKpEXFqmwbwE8NwRpGfbSrQhscjHJ5m/CNC37+ztw+PhXCA==
-----END PUBLIC KEY-----
"""
    /// PyJWT-independent RS256 over header `{"alg":"RS256","typ":"JWT"}` and the claims below;
    /// RSASSA-PKCS1-v1_5 is deterministic, so our signature must be these very bytes.
    static let rs256Header = #"{"alg":"RS256","typ":"JWT"}"#
    static let rs256Claims = #"{"iss":"pacenote@example.iam.gserviceaccount.com","iat":1700000000}"#
    static let rs256Token = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJwYWNlbm90ZUBleGFtcGxlLmlhbS5nc2VydmljZWFjY291bnQuY29tIiwiaWF0IjoxNzAwMDAwMDAwfQ.eemaCpW_u2nv4ck7EXjGuthk19h9mAq0MEjfagJPObYGPJ5m-RMKra0zcUpwIlG74o0ge89RV9m75NxJlJgJfgnaEDkDUnNI4q5pAl4buGenkT6aX-WzZzHh4YzRRlzHicLcuqIyAsWPIBH3gjmK-IOcCPS_QYTUe4h8YR_PH-InrCJWyiL3ea386pzjCD77ILuDnPdMwujT0tHjUCV5opH06kyzxKQS-7XFtJ-6-Mk_kIP4Woxf3DyHRh9YHwGYJFBmd3WbloUMZWxJg78l7Rqy-8yXqLJzx0GkrRyVB-A74fv78ctO1hb7em8Eo7f4zpd4O45Q8QQe9x8XM9m4Nw"
    /// An ES256 token signed by PyJWT with `ecPrivate` (ECDSA is randomized: verify, not compare).
    static let es256Token = "eyJhbGciOiJFUzI1NiIsImtpZCI6IktFWTEyMzQ1NjciLCJ0eXAiOiJKV1QifQ.eyJpc3MiOiJURUFNMTIzNDU2IiwiaWF0IjoxNzAwMDAwMDAwfQ.iVjIErIvamYVhtf5-2JR8W8ujQ2u6CUfkO80JrlODUfkQxZCgnpTVuCSHrh6Un0qPXn0p2nXZPv88IoQL2JnTw"
}
