import FirestoreWire

/// How ``VectorQuery`` measures the distance between a stored vector and the query vector (REST
/// `StructuredQuery.FindNearest.DistanceMeasure`, https://cloud.google.com/firestore/docs/vector-search ; the SDKs'
/// `DistanceMeasure`). For two vectors `a` and `b`:
public enum DistanceMeasure: String, Sendable, Hashable, CaseIterable {
    /// `EUCLIDEAN`: `sqrt(Σ (aᵢ − bᵢ)²)`; smaller is nearer.
    case euclidean = "EUCLIDEAN"
    /// `COSINE`: `1 − (a · b) / (|a| |b|)`, from 0 (same direction) to 2 (opposite); smaller is nearer, and the
    /// magnitudes do not count. Google recommends ``dotProduct`` on unit-normalized vectors instead: the same order,
    /// computed faster.
    case cosine = "COSINE"
    /// `DOT_PRODUCT`: `a · b`; **larger** is nearer, and the magnitudes count.
    case dotProduct = "DOT_PRODUCT"
}
