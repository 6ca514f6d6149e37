import pytest

from models.first_names import agrees, person_shaped, sex_of


@pytest.mark.parametrize(
    ("name", "sex"),
    [
        ("Henry Dunn", "he"),
        ("Margaret Ilsey", "she"),
        ("Ada Pell", "she"),
        ("Tobias Lund", "he"),
        ("Ottilie Marrow", ""),  # in neither list: agrees with both
        ("Leslie Hale", ""),  # borne by men and women alike
        ("Mount Cairnvey", ""),
        ("the Marguerite", ""),  # not shaped like a person's name: a ship may be "she"
        ("Henry", ""),  # one word is not judged
    ],
)
def test_the_first_name_says_the_sex_only_when_clear(name, sex):
    assert sex_of(name) == sex


def test_agreement_is_about_he_and_she_only():
    assert agrees("Henry Dunn", "he") and not agrees("Henry Dunn", "she")
    assert agrees("Henry Dunn", "it") and agrees("Henry Dunn", "they")
    assert agrees("Ottilie Marrow", "he") and agrees("Ottilie Marrow", "she")


def test_person_shaped():
    assert person_shaped("Anna Vey") and person_shaped("Mary Ann Vey")
    assert not person_shaped("the Lumo T2") and not person_shaped("Supper at the Ferryman's House")
