"""Words whose counterpart says the opposite or another relation: born/died, before/after, king/queen,
first/last ... ("a:b" pairs, both ways), per language.

The detector's training data swaps them to make relation and contradiction errors
(core/training/detector_data.py); the default verifier looks for them in a fact that copies an
evidence sentence but for one such word (`swapped_counterpart`): the detector, reading the whole
sentence, often passes a single swapped word in a long one.
"""
from __future__ import annotations

import difflib
import functools
import re
from typing import Iterator, Sequence

from .prizes import AWARD_STATUS
from ..text.segment import split_sentences
from ..text.textutil import HAN_LANGS, NEGATIONS, SPACELESS, STOPWORDS, han_simplified, words_with_offsets

Words = tuple[tuple[str, int, int], ...]      # a sentence's words with their offsets (words_with_offsets)


@functools.lru_cache(maxsize=4096)
def sentence_words(text: str, lang: str) -> tuple[Words, ...]:
    """The words of each sentence of an evidence passage: split once per passage for every check of
    this module that reads it (a fact's checks read the same passages)."""
    return tuple(tuple(words_with_offsets(sent.text)) for sent in split_sentences(text, lang))


# relation swaps (events, roles) and antonyms
RELATIONS = {
    "en": "born:died won:lost win:lose wins:loses increased:decreased before:after father:mother son:daughter "
    "husband:wife "
    "brother:sister king:queen founded:dissolved elected:defeated opened:closed joined:left "
    "married:divorced",
    "es": "nació:murió ganó:perdió aumentó:disminuyó antes:después padre:madre hijo:hija esposo:esposa "
    "hermano:hermana rey:reina fundó:disolvió",
    "fr": "né:mort née:morte gagné:perdu augmenté:diminué avant:après père:mère fils:fille frère:sœur "
    "roi:reine fonde:dissout",
    "de": "geboren:gestorben gewann:verlor vor:nach Vater:Mutter Sohn:Tochter Bruder:Schwester König:Königin "
    "gründete:auflöste",
    "ca": "néixer:morir abans:després pare:mare fill:filla germà:germana rei:reina guanyà:perdé",
    "it": "nato:morto nata:morta vinse:perse prima:dopo padre:madre figlio:figlia fratello:sorella re:regina",
    "pt": "nasceu:morreu venceu:perdeu antes:depois pai:mãe filho:filha irmão:irmã rei:rainha",
    "ro": "născut:murit înainte:după tatăl:mama fiul:fiica fratele:sora regele:regina",
    "pl": "urodził:zmarł urodziła:zmarła przed:po ojciec:matka syn:córka brat:siostra król:królowa wygrał:przegrał",
    "cs": "narodil:zemřel narodila:zemřela před:po otec:matka syn:dcera bratr:sestra král:královna",
    "tr": "doğdu:öldü önce:sonra baba:anne oğlu:kızı kral:kraliçe kazandı:kaybetti arttı:azaldı",
    "id": "lahir:meninggal sebelum:sesudah ayah:ibu putra:putri raja:ratu menang:kalah",
    "ms": "lahir:meninggal sebelum:selepas bapa:ibu raja:permaisuri menang:kalah",
    "vi": "sinh:mất trước:sau cha:mẹ thắng:thua tăng:giảm",
    "zh": "出生:逝世 之前:之后 以前:以后 父亲:母亲 儿子:女儿 丈夫:妻子 增加:减少 上升:下降 胜利:失败 建立:解散 "
    "开始:结束 获胜:落败",
    "yue": "出生:逝世 之前:之後 父親:母親 兒子:女兒 增加:減少",
    "fi": "syntyi:kuoli ennen:jälkeen isä:äiti poika:tytär veli:sisko kuningas:kuningatar voitti:hävisi",
    "hu": "született:meghalt előtt:után apja:anyja fia:lánya király:királynő nyert:vesztett",
    "eo": "naskiĝis:mortis antaŭ:post patro:patrino filo:filino frato:fratino reĝo:reĝino",
    "sr": "rođen:umro pre:posle otac:majka sin:ćerka kralj:kraljica рођен:умро пре:после отац:мајка "
    "син:ћерка краљ:краљица",
    "fa": "متولد:درگذشت قبل:بعد پدر:مادر پسر:دختر",
    "la": "natus:mortuus ante:post pater:mater filius:filia rex:regina",
    "lt": "gimė:mirė prieš:po tėvas:motina sūnus:dukra karalius:karalienė",
    "eu": "jaio:hil aurretik:ondoren aita:ama seme:alaba errege:erregina",
    "ko": "아버지:어머니 아들:딸 이전:이후 증가:감소",
    "ru": "родился:умер родилась:умерла рождения:смерти до:после отец:мать сын:дочь муж:жена брат:сестра "
    "король:королева выиграл:проиграл выиграла:проиграла победил:проиграл увеличился:уменьшился "
    "основал:распустил открыт:закрыт женился:развёлся",
    "uk": "народився:помер народилася:померла до:після батько:мати син:донька чоловік:дружина брат:сестра "
    "король:королева виграв:програв",
    "ar": "ولد:توفي ولدت:توفيت قبل:بعد الأب:الأم والده:والدته ابن:ابنة ابنه:ابنته زوجها:زوجته أخ:أخت "
    "أخوه:أخته الملك:الملكة ملك:ملكة فاز:خسر فازت:خسرت زاد:انخفض ارتفع:انخفض تأسست:حلت",
    "he": "נולד:נפטר נולדה:נפטרה לפני:אחרי אביו:אמו בנו:בתו מלך:מלכה ניצח:הפסיד",
    "ja": "誕生:死去 以前:以後 父:母 息子:娘 長男:長女 増加:減少 勝利:敗北 設立:解散",
}
ANTONYMS = {
    "en": "first:last largest:smallest north:south east:west older:younger highest:lowest early:late "
          "male:female winter:summer more:less northern:southern eastern:western larger:smaller "
          "oldest:youngest left:right victory:defeat major:minor elder:younger eldest:youngest",
    "es": "primer:último primera:última mayor:menor norte:sur este:oeste invierno:verano más:menos "
          "izquierda:derecha grande:pequeño",
    "fr": "premier:dernier première:dernière nord:sud hiver:été plus:moins grand:petit gauche:droite",
    "de": "erste:letzte ersten:letzten Norden:Süden Osten:Westen Winter:Sommer mehr:weniger größte:kleinste "
          "nördlich:südlich östlich:westlich älter:jünger älterer:jüngerer ältere:jüngere älteren:jüngeren "
          "ältester:jüngster älteste:jüngste ältesten:jüngsten größer:kleiner größere:kleinere früher:später",
    "ca": "primer:últim nord:sud hivern:estiu més:menys gran:petit",
    "it": "primo:ultimo nord:sud inverno:estate più:meno grande:piccolo",
    "pt": "primeiro:último norte:sul inverno:verão mais:menos grande:pequeno",
    "ro": "primul:ultimul nord:sud est:vest iarna:vara mare:mic",
    "pl": "pierwszy:ostatni północ:południe wschód:zachód zima:lato więcej:mniej największy:najmniejszy "
          "północnej:południowej wschodniej:zachodniej",
    "cs": "první:poslední sever:jih východ:západ zima:léto více:méně největší:nejmenší severní:jižní "
          "východní:západní",
    "tr": "ilk:son kuzey:güney doğu:batı kış:yaz büyük:küçük kuzeyinde:güneyinde doğusunda:batısında",
    "id": "pertama:terakhir utara:selatan timur:barat lebih:kurang besar:kecil",
    "ms": "pertama:terakhir utara:selatan timur:barat besar:kecil",
    "vi": "bắc:nam đông:tây lớn:nhỏ nhiều:ít",
    "zh": "第一:最后 北:南 东:西 最大:最小 冬:夏 更大:更小 较大:较小 大很多:小很多 最高:最低 最早:最晚 "
          "多于:少于 高于:低于 早于:晚于 哥哥:弟弟 姐姐:妹妹",
    "yue": "第一:最後 北:南 東:西 最大:最細 冬:夏 最高:最低 最早:最遲 哥哥:弟弟 家姐:細妹 姐姐:妹妹",
    "fi": "ensimmäinen:viimeinen talvi:kesä enemmän:vähemmän suurin:pienin",
    "hu": "első:utolsó északi:déli keleti:nyugati tél:nyár több:kevesebb legnagyobb:legkisebb",
    "eo": "unua:lasta nordo:sudo oriento:okcidento vintro:somero pli:malpli granda:malgranda",
    "sr": "prvi:poslednji sever:jug istok:zapad први:последњи север:југ исток:запад зима:лето више:мање "
          "највећи:најмањи",
    "fa": "اولین:آخرین شمال:جنوب شرق:غرب بزرگ:کوچک بیشتر:کمتر زمستان:تابستان",
    "la": "primus:ultimus maior:minor",
    "lt": "pirmasis:paskutinis šiaurės:pietų rytų:vakarų daugiau:mažiau didžiausias:mažiausias",
    "eu": "lehen:azken iparralde:hegoalde ekialde:mendebalde gehiago:gutxiago handi:txiki",
    "ko": "북쪽:남쪽 동쪽:서쪽 최초:최후 최대:최소",
    "ru": "первый:последний первая:последняя первым:последним север:юг восток:запад северной:южной "
          "восточной:западной северном:южном крупнейший:наименьший больше:меньше старший:младший "
          "старшая:младшая зима:лето зимой:летом севере:юге востоке:западе северу:югу",
    "uk": "перший:останній північ:південь схід:захід більше:менше старший:молодший",
    "ar": "الأول:الأخير أول:آخر الأولى:الأخيرة الشمال:الجنوب الشرق:الغرب شمال:جنوب شرق:غرب الشمالي:الجنوبي "
          "الشرقي:الغربي أكبر:أصغر الأكبر:الأصغر أكثر:أقل الشتاء:الصيف العذبة:المالحة",
    "he": "הראשון:האחרון צפון:דרום מזרח:מערב יותר:פחות הגדול:הקטן",
    "ja": "北部:南部 東部:西部 最大:最小 最初:最後 以上:以下",
}

# ordinal words, first to tenth: per language the beginnings of each (" " between ranks, "|" between
# forms of one rank) and how many letters of ending may follow (German "zweite", "zweiten"; Russian
# "второй", "вторая", "второго"; at least one where the bare beginning is a cardinal: German "acht",
# Russian "девять", Latin and Italian "non")
ORDINALS: dict[str, tuple[str, int, int]] = {
    "en": ("first second third fourth fifth sixth seventh eighth ninth tenth", 0, 0),
    "de": ("erst zweit dritt viert fünft sechst siebt|siebent acht neunt zehnt", 1, 2),
    "fr": ("premi deuxièm|second troisièm quatrièm cinquièm sixièm septièm huitièm neuvièm dixièm", 0, 3),
    "es": ("primer segund tercer cuart quint sext séptim octav noven décim", 0, 2),
    "it": ("prim second terz quart quint sest settim ottav non decim", 1, 1),
    "pt": ("primeir segund terceir quart quint sext sétim oitav non décim", 1, 2),
    "ca": ("primer segon tercer quart cinquè sisè setè vuitè novè desè", 0, 3),
    "ru": ("перв втор трет четвёрт|четверт пят шест седьм восьм девят десят", 2, 3),
    "pl": ("pierwsz drug trzec czwart piąt szóst siódm ósm dziewiąt dziesiąt", 1, 3),
    "lt": ("pirm antr treči ketvirt penkt šešt septint aštunt devint dešimt", 1, 4),
    "tr": ("birinci ikinci üçüncü dördüncü beşinci altıncı yedinci sekizinci dokuzuncu onuncu", 0, 4),
    "hu": ("első második harmadik negyedik ötödik hatodik hetedik nyolcadik kilencedik tizedik", 0, 3),
    "id": ("pertama kedua ketiga keempat kelima keenam ketujuh kedelapan kesembilan kesepuluh", 0, 0),
    "ms": ("pertama kedua ketiga keempat kelima keenam ketujuh kelapan kesembilan kesepuluh", 0, 0),
    "eu": ("lehen bigarren hirugarren laugarren bosgarren seigarren zazpigarren zortzigarren "
           "bederatzigarren hamargarren", 0, 3),
    "eo": ("unua dua tria kvara kvina sesa sepa oka naŭa deka", 0, 2),
    "la": ("prim secund terti quart quint sext septim octav non decim", 1, 2),
    "ar": ("أول|أولى ثاني|ثانية ثالث|ثالثة رابع|رابعة خامس|خامسة سادس|سادسة سابع|سابعة ثامن|ثامنة تاسع|تاسعة "
           "عاشر|عاشرة", 0, 0),
    "fa": ("اول دوم سوم چهارم پنجم ششم هفتم هشتم نهم دهم", 0, 2),
    "he": ("ראשון|ראשונה שני|שנייה|שניה שלישי|שלישית רביעי|רביעית חמישי|חמישית שישי|שישית שביעי|שביעית "
           "שמיני|שמינית תשיעי|תשיעית עשירי|עשירית", 0, 0),
}
_ORDINAL_PROCLITIC = {"ar": re.compile(r"^(?:[وف]?ال|[وف])(?=..)"), "he": re.compile(r"^[וה]{1,2}(?=..)")}
_HAN_ORDINAL = re.compile(r"第([一二三四五六七八九十])(?![一二三四五六七八九十百千])")


@functools.lru_cache(maxsize=64)
def _ordinal_stems(lang: str) -> tuple[tuple[str, int], ...]:
    spec = ORDINALS.get(lang)
    if spec is None:
        return ()
    stems = [(form, rank) for rank, forms in enumerate(spec[0].split(), 1) for form in forms.split("|")]
    return tuple(sorted(stems, key=lambda x: -len(x[0])))


def ordinal_rank(word: str, lang: str) -> int | None:
    """1-10 for an ordinal word of `lang` ("zweiten" 2, "третья" 3, "الثالث" 3), else None."""
    spec = ORDINALS.get(lang)
    if spec is None:
        return None
    w = word.lower()
    if lang in _ORDINAL_PROCLITIC:
        bare = _ORDINAL_PROCLITIC[lang].sub("", w)
        w = bare if any(bare == f for f, _r in _ordinal_stems(lang)) else w
    for stem, rank in _ordinal_stems(lang):
        if w.startswith(stem) and spec[1] <= len(w) - len(stem) <= spec[2]:
            return rank
    return None


def _other_rank(a: str, b: str, lang: str) -> bool:
    """Two ordinals of different rank ("second" where the evidence says "third")."""
    x = ordinal_rank(a, lang)
    return x is not None and ordinal_rank(b, lang) not in (None, x)


NEAR_COPY_RATIO = 0.8                           # difflib ratio of a fact and its evidence sentence
MIN_WORDS = 5


def pairs(spec: str) -> dict[str, str]:
    """The "a:b" pairs of a table entry as word -> counterpart, both ways (the first pair of a word wins)."""
    out: dict[str, str] = {}
    for item in spec.split():
        a, b = item.split(":")
        out.setdefault(a, b)
        out.setdefault(b, a)
    return out


@functools.lru_cache(maxsize=64)
def counterparts(lang: str) -> dict[str, str]:
    """word -> its counterpart, relations and antonyms (a word in both: its relation)."""
    return {**pairs(ANTONYMS.get(lang, "")), **pairs(RELATIONS.get(lang, ""))}


AWARD_OVERLAP = 0.6        # share of the fact's other content words the evidence sentence must hold


def _status_words(words: Sequence[str], stems: tuple[str, ...], lang: str) -> list[int]:
    """Indices of the words that begin with one of `stems` (in Arabic after a prefixed "و"/"ف")."""
    out = []
    for i, w in enumerate(words):
        if lang == "ar" and len(w) > 3 and w[0] in "وف":
            w = w[1:]
        if any(w == s[:-1] if s.endswith("$") else w.startswith(s) for s in stems):
            out.append(i)
    return out


def _said(words: Sequence[str], found: list[int]) -> list[int]:
    """The status words of `found` that no negation in the three words before denies ("never won",
    "did not win", "nunca ganó"): a denied "won" says nothing won (rules r29)."""
    return [i for i in found if not any(w in NEGATIONS for w in words[max(0, i - 3):i])]


def award_status_swap(fact: str, lang: str, texts: Sequence[str]) -> tuple[int, int, str] | None:
    """(start, end, the evidence's word) of the fact's "won" where the evidence sentence that holds
    the rest of the fact (AWARD_OVERLAP of its content words, 5-letter beginnings) says "nominated",
    and says nothing of winning, or the reverse. None otherwise."""
    table = AWARD_STATUS.get(lang)
    if table is None:
        return None
    fw = words_with_offsets(fact)
    ft = [w.lower() for w, _a, _b in fw]
    won, nom = _status_words(ft, table[0], lang), _status_words(ft, table[1], lang)
    if bool(won) == bool(nom) or len(_said(ft, won + nom)) < len(won + nom):
        return None
    said, other = (won, table[1]) if won else (nom, table[0])
    mine = table[0] if won else table[1]
    content = {t[:5] for i, t in enumerate(ft) if i not in said and t not in STOPWORDS and len(t) > 2}
    if len(content) < 3:
        return None
    for text in texts:
        for ew in sentence_words(text, lang):
            et = [w.lower() for w, _a, _b in ew]
            theirs = _status_words(et, other, lang)
            if not theirs or _said(et, _status_words(et, mine, lang)):
                continue
            if len(content & {t[:5] for t in et}) >= AWARD_OVERLAP * len(content):
                i = said[0]
                return fw[i][1], fw[i][2], ew[theirs[0]][0]
    return None


def swapped_counterpart(fact: str, lang: str, texts: Sequence[str]) -> tuple[int, int, str] | None:
    """(start, end, the evidence's word) of a word of `fact` that stands where an evidence sentence,
    which the fact otherwise nearly copies (difflib ratio >= NEAR_COPY_RATIO over words), has its
    counterpart: "... one queen, one queen ..." against "... one king, one queen ...". None when no
    sentence of `texts` aligns so, or the language has no table or no spaces."""
    table = counterparts(lang)
    if lang in SPACELESS:
        return _spaceless_swap(fact, lang, texts, table)
    if not table and lang not in ORDINALS:
        return None
    fw = words_with_offsets(fact)
    if len(fw) < MIN_WORDS:
        return None
    ft = [w.lower() for w, _a, _b in fw]
    if not any(t in table or ordinal_rank(t, lang) for t in ft):
        return None
    for i, _i2, ew, j, _j2 in _swaps(ft, lang, texts):
        e = ew[j][0].lower()
        if table.get(ft[i]) == e or table.get(e) == ft[i] or _other_rank(ft[i], e, lang):
            return fw[i][1], fw[i][2], ew[j][0]
    return None


def _swaps(ft: list[str], lang: str, texts: Sequence[str], most: int = 1) -> Iterator[tuple[int, int, Words, int, int]]:
    """(i1, i2, the sentence's words, j1, j2) for each evidence sentence that the fact (its lower-case
    words `ft`) nearly copies (difflib ratio or `_covered` >= NEAR_COPY_RATIO) but for its words
    i1..i2, which stand where the sentence has its words j1..j2 (at most `most` on either side)."""
    for text in texts:
        for ew in sentence_words(text, lang):
            et = [w.lower() for w, _a, _b in ew]
            if len(et) < MIN_WORDS:
                continue
            sm = difflib.SequenceMatcher(None, ft, et, autojunk=False)
            ops = sm.get_opcodes()
            if sm.ratio() < NEAR_COPY_RATIO and _covered(sm, len(ft)) < NEAR_COPY_RATIO:
                if most > 1 and _copied_up_to_end(ops, ft, et):
                    ops = ops[-1:]
                elif most > 1 and (tail := _anchored_tail(ft, et, most)):
                    ops = [("replace", tail[0], len(ft), tail[1], len(et))]
                else:
                    continue
            for op, i1, i2, j1, j2 in ops:
                if op == "replace" and i2 == len(ft) and i1 > 0:
                    j2 = min(j2, j1 + most)     # the fact ends where the sentence goes on ("... in die
                                                # Türkei" against "... in die Schweiz, wo er ...")
                if op == "replace" and i2 - i1 <= most and j2 - j1 <= most:
                    yield i1, i2, ew, j1, j2


TAIL_COPY = 3       # words a short fact copies before the name it ends with ("1933 emigrierte er | nach Kanada")


def _copied_up_to_end(ops: list, ft: Sequence[str], et: Sequence[str]) -> bool:
    """Whether a fact (its lower-case words `ft`) copies an evidence sentence (`et`), in order and
    without a gap on its own side, for at least TAIL_COPY words up to a last stretch that differs
    ("1933 emigrierte er nach Italien" against "1933 emigrierte er in die USA, wo ..."): a short fact
    whose other words are too few for the copy's share to tell."""
    if not ops or ops[-1][0] != "replace" or ops[-1][2] != len(ft) or ops[-1][1] < TAIL_COPY:
        return False
    return all(op == "equal" or i1 == i2 for op, i1, i2, _j1, _j2 in ops[:-1])


def _anchored_tail(ft: Sequence[str], et: Sequence[str], most: int) -> tuple[int, int] | None:
    """(i1, j1) where a short fact's last stretch ft[i1:] (at most `most` words) follows the same two
    words as the sentence's et[j1:], and differs from it, when every word of the fact before it is the
    sentence's or a small word, in another order ("1895 ging er in die | Türkei" against "Albert ging
    1895 in die | Schweiz": German puts the verb second), and it has TAIL_COPY of them at least."""
    words = set(et)
    for k in range(1, most + 1):
        i1 = len(ft) - k
        if i1 < max(2, TAIL_COPY) or not all(w in words or w in STOPWORDS for w in ft[:i1]):
            continue
        anchor = list(ft[i1 - 2:i1])
        for j in range(2, len(et)):
            if et[j - 2:j] == anchor and et[j] != ft[i1]:
                return i1, j
    return None


def swapped_name(fact: str, lang: str, texts: Sequence[str]) -> tuple[int, int, str] | None:
    """(start, end, the evidence's name) of a name of `fact` that stands where an evidence sentence,
    which the fact otherwise nearly copies (as `swapped_counterpart`), has another name, when the
    evidence nowhere has the fact's name (not even inflected: the same first five letters): "Çıkışını
    SM Entertainment tarafından oluşturulan Miss A grubu ile yaptı" against "... JYP Entertainment
    ...". An entity swapped in a long sentence, which the detector often passes. Names are capitalised
    words not opening the sentence, in scripts with capitals; None otherwise."""
    if lang in SPACELESS:
        return None
    fw = words_with_offsets(fact)
    if len(fw) < SHORT_WORDS or not any(_is_name(w) for w, _a, _b in fw[1:]):
        return None
    ft = [w.lower() for w, _a, _b in fw]
    said = set().union(*map(word_prefixes, texts))
    swaps = _swaps(ft, lang, texts, NAME_WORDS) if len(fw) >= MIN_WORDS else _short_swaps(ft, lang, texts)
    for i1, i2, ew, j1, j2 in swaps:
        i1, j1 = _first_name(fw, i1, i2), _first_name(ew, j1, j2)     # "nach Kanada" for "in die USA"
        mine, theirs = [w for w, _a, _b in fw[i1:i2]], _leading_name([w for w, _a, _b in _unbroken(ew, j1, j2)])
        if i1 == 0 or j1 == 0 or (lang == "de" and ft[i1 - 1] in _GERMAN_DETERMINERS
                                  and not (_territory(mine, lang) and _territory(theirs, lang))):
            continue
        if not (_all_names(mine) and _all_names(theirs)):
            continue
        seen = _seen_names(ft[:i1] + ft[i2:], theirs, lang, texts, [w.lower() for w, _a, _b in ew])
        if _territory(mine, lang) and not (_territory(theirs, lang) or _acronym(theirs)):
            seen |= said          # a country the evidence has, for its city: "moved to France" for "to Paris"
        new = [k for k in range(i1, i2) if _is_name(fw[k][0]) and ft[k][:5] not in seen]
        if new:
            return fw[new[0]][1], fw[new[-1]][2], " ".join(theirs)
    return None


SHORT_WORDS = 3     # a fact this short is a near copy only when every word but one is the sentence's


def _short_swaps(ft: list[str], lang: str, texts: Sequence[str]) -> Iterator[tuple[int, int, Words, int, int]]:
    """As `_swaps`, for a fact of SHORT_WORDS to MIN_WORDS - 1 words: an evidence sentence that has
    all of them in order but one, which stands where it has one other word ("1921'de Paris'e gitti"
    against "1921'de Moskova'ya gitti ve ...": Turkish drops the subject, so such facts are short)."""
    for text in texts:
        for ew in sentence_words(text, lang):
            sm = difflib.SequenceMatcher(None, ft, [w.lower() for w, _a, _b in ew], autojunk=False)
            # what differs on the fact's side (the sentence's own extra words aside): one word for one
            inner = [op for op in sm.get_opcodes() if op[0] != "equal" and op[1] < op[2]]
            if (
                len(inner) == 1
                and inner[0][0] == "replace"
                and inner[0][2] - inner[0][1] == inner[0][4] - inner[0][3] == 1
            ):
                _op, i1, i2, j1, j2 = inner[0]
                yield i1, i2, ew, j1, j2


def _unbroken(words: Sequence[tuple[str, int, int]], j1: int, j2: int) -> Sequence[tuple[str, int, int]]:
    """words[j1:j2] up to the first that stands after more than a space ("Italien" of "Italien,
    Albert")."""
    for k in range(j1 + 1, j2):
        if words[k][1] - words[k - 1][2] > 1:
            return words[j1:k]
    return words[j1:j2]


def _first_name(words: Sequence[tuple[str, int, int]], i1: int, i2: int) -> int:
    """The first of words[i1:i2] that is a name or a name's particle ("de Broglie"), past the small
    words before it (a preposition, an article); i1 when none is."""
    for k in range(i1, i2):
        if _is_name(words[k][0]) or words[k][0] in _NAME_PARTICLES:
            return k
    return i1


def _prefixes(words: Sequence[tuple[str, int, int]]) -> set[str]:
    return {w.lower()[:5] for w, _a, _b in words}


def word_prefixes(text: str) -> set[str]:
    """The first five letters of each word of `text`, lower case: a word in any of its forms."""
    return _prefixes(words_with_offsets(text))


SEEN_SHARE = 0.4    # a sentence holding this share of a fact's other words (two at least) may say its name in its place


def _seen_names(rest: Sequence[str], theirs: Sequence[str], lang: str, texts: Sequence[str],
                copied: Sequence[str] = ()) -> set[str]:
    """The names (5-letter prefixes, lower case) that the evidence says where they may belong to the
    fact: in a sentence that holds SEEN_SHARE of the fact's other content words (`rest`; two at least,
    or all when it has fewer, and as many as the sentence it copies, `copied`), or one that
    also names the evidence's own name (`theirs`: "Warsaw was then part of the Russian Empire" ties the
    two places). A name the evidence has only in sentences about other things ("1880 zog die Familie
    nach München" for "Albert ging 1895 nach München", where the evidence has "in die Schweiz") is not
    seen: it was taken from elsewhere."""
    content = {w[:5] for w in rest if w not in STOPWORDS and not w.isdigit()}
    tie = {w.lower()[:5] for w in theirs if _is_name(w)}
    need = min(len(content), max(2, SEEN_SHARE * len(content)))      # one shared "nach" says nothing
    # ... and as many as the sentence the fact copies: "She won the 1911 Nobel Prize in Physics" copies
    # "She won the 1911 Nobel Prize in Chemistry", not "She shared the 1903 Nobel Prize in Physics"
    need = max(need, len(content & {w[:5] for w in copied}))
    out: set[str] = set()
    for text in texts:
        for ew in sentence_words(text, lang):
            words = _prefixes(ew)
            if (words & tie) or len(words & content) >= need:
                out |= words
    return out


NAME_WORDS = 3          # words of a name swapped for another ("Louis de Broglie" for "Max Planck")
_NAME_PARTICLES = frozenset("de da di do du del della des der den van von la le bin ibn al el y".split())


def _leading_name(words: Sequence[str]) -> list[str]:
    """The words up to the first that is neither a name nor a particle ("Schweiz" of "Schweiz wo
    er"), or all of them when the first is not a name."""
    for k, w in enumerate(words):
        if not (_is_name(w) or (k and w in _NAME_PARTICLES)):
            return list(words[:k]) if k else list(words)
    return list(words)


def _all_names(words: Sequence[str]) -> bool:
    """Capitalised words (particles between them), at least one: a name."""
    return any(_is_name(w) for w in words) and all(_is_name(w) or w in _NAME_PARTICLES for w in words)


# German capitalises every noun: after a determiner a capitalised word is a noun ("die Ortschaft" for
# "die Gemeinde" may be a rewording), a name stands without one ("in Lyon", "von Marie Curie")
_GERMAN_DETERMINERS = frozenset("""der die das den dem des ein eine einen einem einer eines kein keine keinen
keinem keiner sein seine seinen seinem seiner ihr ihre ihren ihrem ihrer dieser diese dieses diesen diesem
jener jene jenes jeden jeder jedes jedem zum zur im am vom beim ins ans""".split())


@functools.lru_cache(maxsize=8)
def _territory_words(lang: str) -> frozenset[str]:
    """The lower-cased words of the country and region names CLDR gives in `lang` (Babel), without
    the short ones ("St.", "und")."""
    try:
        from babel import Locale
        names = Locale.parse(lang).territories.values()
    except (ImportError, ValueError, LookupError):
        return frozenset()
    return frozenset(w.lower() for n in names for w in re.findall(r"\w+", n) if len(w) >= 4)


def _territory(words: Sequence[str], lang: str) -> bool:
    """Every capitalised word a word of a country's name (CLDR), inflected or not ("Vereinigten
    Staaten", "Türkei"): a German name that takes an article ("in die Türkei"), not a common noun."""
    known = _territory_words(lang)
    caps = [w.lower() for w in words if _is_name(w)]
    return bool(caps) and all(w in known or w.rstrip("ns") in known or w[:-1] in known for w in caps)


def _acronym(words: Sequence[str]) -> bool:
    """A name in capitals of 2-5 letters ("USA", "UdSSR"): a country's as often as not."""
    return len(words) == 1 and 2 <= len(words[0]) <= 5 and sum(c.isupper() for c in words[0]) >= 2


def _is_name(word: str) -> bool:
    """A capitalised word or an acronym ("Gwangju", "JYP"), not a number."""
    return word[:1].isupper()


def _covered(sm: difflib.SequenceMatcher, n: int) -> float:
    """The share of the fact's words found, in order, in the evidence sentence: a fact that copies one
    part of a long sentence ("... تقع في شمال سيبيريا في روسيا" in "... تقع في جنوب سيبيريا في روسيا،
    بين إقليم إركوتسك ...") is a near copy of it though their ratio is low."""
    return sum(b.size for b in sm.get_matching_blocks()) / max(1, n)


SPACELESS_CONTEXT = 3      # characters on each side of a swapped word that the evidence must share
SPACELESS_MIN_CONTEXT = 3  # ... at least this many of them in all


def _spaceless_swap(fact: str, lang: str, texts: Sequence[str], table: dict[str, str]) -> tuple[int, int, str] | None:
    """Chinese, Cantonese, Japanese: a word of the table in the fact where an evidence sentence has its
    counterpart between the same characters ("储物箱空间比普通角色更大" against "...比普通角色更小";
    "1934年在巴黎出生" against "1934年在巴黎逝世"), compared in simplified characters."""
    chinese = lang in HAN_LANGS
    simple = han_simplified(fact) if chinese else fact
    sents = [han_simplified(t) for t in texts] if chinese else list(texts)
    if chinese:     # the table read in simplified characters too ("最細", "細妹" were never found)
        table = _simplified_table(lang)
    if chinese and (comp := _comparative_swap(simple, sents)):
        return comp
    if rank := _han_ordinal_swap(simple, sents):
        return rank
    found = [(simple.find(w), w) for w in sorted(table, key=len, reverse=True) if w in simple]
    for a, w in found:
        b = a + len(w)
        left, right = simple[max(0, a - SPACELESS_CONTEXT):a], simple[b:b + SPACELESS_CONTEXT]
        if len(left) + len(right) < SPACELESS_MIN_CONTEXT:
            continue
        if any(left + table[w] + right in t and left + w + right not in t for t in sents):
            return a, b, table[w]
    return None


@functools.lru_cache(maxsize=8)
def _simplified_table(lang: str) -> dict[str, str]:
    return {han_simplified(k): han_simplified(v) for k, v in counterparts(lang).items()}


def _han_ordinal_swap(fact: str, sents: Sequence[str]) -> tuple[int, int, str] | None:
    """"第二" where the evidence has "第三" between the same characters (SPACELESS_CONTEXT each side)."""
    for m in _HAN_ORDINAL.finditer(fact):
        left = fact[max(0, m.start() - SPACELESS_CONTEXT):m.start()]
        right = fact[m.end():m.end() + SPACELESS_CONTEXT]
        if len(left) + len(right) < SPACELESS_MIN_CONTEXT or any(
            m.group() in t and left + m.group() + right in t for t in sents
        ):
            continue
        for t in sents:
            for o in _HAN_ORDINAL.finditer(t):
                if o.group(1) != m.group(1) and t[max(0, o.start() - len(left)):o.start()] == left \
                        and t[o.end():o.end() + len(right)] == right:
                    return m.start(), m.end(), o.group()
    return None


# a Chinese comparison, "比普通角色更大" (larger than ...), and its opposite in the evidence,
# "較普通角色的要小很多" (much smaller than ...): the same thing compared, the opposite adjective
_COMPARED = re.compile(r"(?:比|较)(\w{2,10}?)(?:的)?(?:更加|还要|更|要|还)?([大小多少高低长短早晚快慢强弱])")
_OPPOSITE = pairs("大:小 多:少 高:低 长:短 早:晚 快:慢 强:弱")


def _comparative_swap(fact: str, sents: Sequence[str]) -> tuple[int, int, str] | None:
    for m in _COMPARED.finditer(fact):
        other = _OPPOSITE[m.group(2)]
        for t in sents:
            if any(e.group(1) == m.group(1) and e.group(2) == other for e in _COMPARED.finditer(t)):
                return m.start(2), m.end(2), other
    return None
